"""The calling session of a model request, carried in a context variable per asyncio task.

A child started through the subagent cassette gets its own session (`subagent_session`): the
tasks its provider starts inherit it, so the child's model calls never land in its parent's
script, and its subagent call key is the session's topology identity for binding. When the
cassette replays a child instead of running it, `subagent_replayed` tells every observing
replayer that the child's recorded model calls are covered.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar, Token
from dataclasses import dataclass

from cassette_provider.contract.sessions import SessionBridge

#: Something told about every subagent call key the subagent cassette replays.
SubagentObserver = Callable[[str], None]

#: The live session id prefix of a child started through the subagent cassette.
SUBAGENT_SESSION_PREFIX = "subagent:"


@dataclass(frozen=True, slots=True)
class CallingSession:
    """The live session id, an optional script ordinal, and the subagent identity if any.

    `call_key` is the subagent call key of a child started through the subagent cassette;
    `parent_session` is the session that started it (None: the primary).
    """

    session_id: str
    first_call_ordinal: int | None = None
    call_key: str | None = None
    parent_session: str | None = None


@dataclass(frozen=True, slots=True)
class ResolvedSession:
    """Who makes one model call: session id (None: anonymous), pin, subagent identity, parent."""

    session: str | None
    first_call_ordinal: int | None = None
    call_key: str | None = None
    parent_session: str | None = None


#: The session on whose behalf model calls are made in the current task (LLMREPLAY-1).
current_session: ContextVar[CallingSession | None] = ContextVar(
    "cassette_current_session", default=None
)

_subagent_observers: ContextVar[tuple[SubagentObserver, ...]] = ContextVar(
    "cassette_subagent_observers", default=()
)


@contextmanager
def session_scope(session_id: str, first_call_ordinal: int | None = None) -> Iterator[None]:
    """Stamp model calls made inside the block (and tasks it starts) with a session id."""
    token = current_session.set(CallingSession(session_id, first_call_ordinal))
    try:
        yield
    finally:
        current_session.reset(token)


class _SubagentSession:
    """`subagent_session`'s block: a class, not a generator (issue 24: one per recorded call)."""

    __slots__ = ("_call_key", "_token")

    def __init__(self, call_key: str) -> None:
        self._call_key = call_key
        self._token: Token[CallingSession | None] | None = None

    def __enter__(self) -> CallingSession:
        parent = current_session.get()
        session = CallingSession(
            f"{SUBAGENT_SESSION_PREFIX}{self._call_key}",
            call_key=self._call_key,
            parent_session=None if parent is None else parent.session_id,
        )
        self._token = current_session.set(session)
        return session

    def __exit__(self, *_exc: object) -> None:
        if self._token is not None:
            current_session.reset(self._token)


def subagent_session(call_key: str) -> AbstractContextManager[CallingSession]:
    """Give the child started inside the block its own session, identified by its call key."""
    return _SubagentSession(call_key)


@contextmanager
def observe_subagents(observer: SubagentObserver) -> Iterator[None]:
    """Tell `observer` every subagent call key the subagent cassette replays inside the block."""
    token = _subagent_observers.set((*_subagent_observers.get(), observer))
    try:
        yield
    finally:
        _subagent_observers.reset(token)


def subagent_replayed(call_key: str) -> None:
    """The subagent cassette answered `call_key` from the recording: the child never runs."""
    for observer in _subagent_observers.get():
        observer(call_key)


def resolve_call(session_id: str | None, first_call_ordinal: int | None) -> ResolvedSession:
    """An explicit id wins (with no subagent identity); otherwise the context's session."""
    if session_id is not None:
        return ResolvedSession(session_id, first_call_ordinal)
    scoped = current_session.get()
    if scoped is None:
        return ResolvedSession(None, first_call_ordinal)
    ordinal = first_call_ordinal if first_call_ordinal is not None else scoped.first_call_ordinal
    return ResolvedSession(scoped.session_id, ordinal, scoped.call_key, scoped.parent_session)


def resolve_session(
    session_id: str | None, first_call_ordinal: int | None
) -> tuple[str | None, int | None]:
    """An explicit id wins; otherwise the context variable's session (or anonymous)."""
    resolved = resolve_call(session_id, first_call_ordinal)
    return resolved.session, resolved.first_call_ordinal


#: What install hands the subagent recorder and replayer: model sessions reached downward.
MODEL_SESSIONS = SessionBridge(child_session=subagent_session, child_replayed=subagent_replayed)
