"""Per-session replay scripts derived from ordered session logs (LLMREPLAY-3, LLMREPLAY-4)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from returns.result import Result

from cassette_topology.sessions.errors import SessionError
from cassette_topology.sessions.ordering import order_primary_first
from cassette_topology.sessions.records import RecordedCall, SessionLog


@dataclass(frozen=True, slots=True)
class SessionScript:
    """The ordered model calls one recorded session made itself, at its binding position.

    `ordinal` is 0 for the primary and 1, 2, … for children in createdAt-then-id order.
    """

    ordinal: int
    recorded_session: str
    calls: tuple[RecordedCall, ...]


def derive_script(log: SessionLog, ordinal: int) -> SessionScript:
    """Cut a log into its own script: a fork child drops the seeded parent prefix.

    A fork child's log begins with the parent's calls, including the parent's responses;
    replaying them as the child's would hand the child its parent's settlements, so only the
    calls after the persisted seed boundary (`seedCalls`) belong to the script.
    """
    seed = log.header.seed_calls or 0
    return SessionScript(ordinal, log.header.id, log.calls[seed:])


def derive_scripts(logs: Iterable[SessionLog]) -> Result[tuple[SessionScript, ...], SessionError]:
    """Order logs primary-first and derive one script per recorded session."""
    return order_primary_first(logs).map(
        lambda ordered: tuple(derive_script(log, ordinal) for ordinal, log in enumerate(ordered))
    )
