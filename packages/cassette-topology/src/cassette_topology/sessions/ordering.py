"""Primary-first ordering of recorded sessions: the parentless one, then children by createdAt.

Ties on `createdAt` are broken by the recorded id, compared by UTF-16 code units as the
reference runtime compares strings, so the order is the same in every implementation
(LLMREPLAY-5, LLMREPLAY-9). The position in this order is the child's ordinal: 1, 2, ….
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from cassette_canonical import utf16_sort_key
from cassette_format.problem import FormatProblem
from cassette_format.sessions import (
    SessionLog,
    SessionLogHeader,
    created_at_instant,
    quote,
)
from returns.result import Failure, Result, Success

from cassette_topology.sessions.errors import SESSION_HARVEST

__all__ = ["order_headers", "order_primary_first"]


def _order_key(header: SessionLogHeader) -> tuple[datetime, bytes]:
    """Children sort by creation instant, then by id in UTF-16 code-unit order."""
    instant = created_at_instant(header.created_at) or datetime.min.replace(tzinfo=UTC)
    return instant, utf16_sort_key(header.id)


def order_headers(
    headers: Iterable[SessionLogHeader],
) -> Result[tuple[SessionLogHeader, ...], FormatProblem]:
    """Order headers primary-first; exactly one primary and distinct ids are required."""
    listed = tuple(headers)
    if not listed:
        return Failure(FormatProblem("no session logs were found", code=SESSION_HARVEST))
    seen: set[str] = set()
    for header in listed:
        if header.id in seen:
            return Failure(
                FormatProblem(
                    f"session {quote(header.id)} is recorded by more than one log",
                    code=SESSION_HARVEST,
                    session=header.id,
                )
            )
        seen.add(header.id)
    primaries = [header for header in listed if header.is_primary]
    if len(primaries) != 1:
        found = "no" if not primaries else f"{len(primaries)}"
        return Failure(
            FormatProblem(
                f"expected exactly one primary session (a log without parentSession), "
                f"found {found}",
                code=SESSION_HARVEST,
            )
        )
    children = sorted((h for h in listed if not h.is_primary), key=_order_key)
    return Success((primaries[0], *children))


def order_primary_first(
    logs: Iterable[SessionLog],
) -> Result[tuple[SessionLog, ...], FormatProblem]:
    """Order session logs primary-first, children by createdAt then id (LLMREPLAY-9)."""
    listed = tuple(logs)
    by_id = {log.header.id: log for log in listed}
    return order_headers(log.header for log in listed).map(
        lambda headers: tuple(by_id[header.id] for header in headers)
    )
