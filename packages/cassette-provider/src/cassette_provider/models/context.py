"""The calling session of a model request, carried in a context variable per asyncio task."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class CallingSession:
    """The live session id and, for concurrent or background children, its script ordinal."""

    session_id: str
    first_call_ordinal: int | None = None


#: The session on whose behalf model calls are made in the current task (LLMREPLAY-1).
current_session: ContextVar[CallingSession | None] = ContextVar(
    "cassette_current_session", default=None
)


@contextmanager
def session_scope(session_id: str, first_call_ordinal: int | None = None) -> Iterator[None]:
    """Stamp model calls made inside the block (and tasks it starts) with a session id."""
    token = current_session.set(CallingSession(session_id, first_call_ordinal))
    try:
        yield
    finally:
        current_session.reset(token)


def resolve_session(
    session_id: str | None, first_call_ordinal: int | None
) -> tuple[str | None, int | None]:
    """An explicit id wins; otherwise the context variable's session (or anonymous)."""
    if session_id is not None:
        return session_id, first_call_ordinal
    scoped = current_session.get()
    if scoped is None:
        return None, first_call_ordinal
    ordinal = first_call_ordinal if first_call_ordinal is not None else scoped.first_call_ordinal
    return scoped.session_id, ordinal
