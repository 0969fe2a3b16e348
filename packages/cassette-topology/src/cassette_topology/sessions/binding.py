"""The binding state machine that routes live model calls to recorded per-session scripts.

A live session binds on its first call to the lowest-numbered unclaimed script (or to the
script an explicit first-call ordinal names) and then advances its own cursor; live ids are
never compared with recorded ids (LLMREPLAY-6). Calls without a session id are one anonymous
session bound to the primary script (LLMREPLAY-7); mixing them with identified calls, an extra
live session (LLMREPLAY-8), an exhausted script and a changed request all fail with a
metadata-only diagnostic naming the session and its call index. A failed call changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from cassette_canonical import JsonValue
from returns.result import Failure, Result, Success

from cassette_topology.sessions.errors import (
    SESSION_EXHAUSTED,
    SESSION_EXTRA,
    SESSION_MIXED,
    SESSION_ORDINAL,
    SESSION_REQUEST_CHANGED,
    SESSION_UNCONSUMED,
    SessionError,
    quote,
    session_label,
)
from cassette_topology.sessions.records import RecordedCall
from cassette_topology.sessions.scripts import SessionScript

_SAMPLE: Final = 5


@dataclass(frozen=True, slots=True)
class BindingState:
    """Scripts, which live session holds which script, and each script's cursor.

    `bound` maps a live session id (None for the anonymous session) to a script ordinal;
    `cursors[k]` is how many calls of script k were replayed. Transitions copy, never mutate.
    """

    scripts: tuple[SessionScript, ...]
    bound: Mapping[str | None, int]
    cursors: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """The recorded call a live call was routed to, and where it sits in its script."""

    session: str | None
    ordinal: int
    call_index: int
    call: RecordedCall


def start_binding(scripts: tuple[SessionScript, ...]) -> BindingState:
    """A state in which no live session has called yet."""
    return BindingState(scripts, {}, tuple(0 for _ in scripts))


def _script_view(state: BindingState, ordinal: int) -> dict[str, JsonValue]:
    """Metadata of one script for a diagnostic: position, recorded id, size, progress."""
    script = state.scripts[ordinal]
    return {
        "ordinal": ordinal,
        "recordedSession": script.recorded_session,
        "calls": len(script.calls),
        "consumed": state.cursors[ordinal],
    }


def _failure(
    code: str,
    reason: str,
    message: str,
    *,
    session: str | None,
    call_index: int,
    request_fingerprint: str,
    script: dict[str, JsonValue] | None = None,
    recorded_fingerprint: str | None = None,
) -> SessionError:
    """Build a binding error with its DIAG-style diagnostic (ids, counts and digests only)."""
    diagnostic: dict[str, JsonValue] = {
        "status": "mismatch",
        "reason": reason,
        "session": session,
        "callIndex": call_index,
        "requestFingerprint": request_fingerprint,
        "script": script,
        "recordedRequestFingerprint": recorded_fingerprint,
    }
    return SessionError(
        code, message, session=session, call_index=call_index, diagnostic=diagnostic
    )


def _described(state: BindingState, ordinal: int) -> str:
    """`script <k> (recorded session "<id>")` for messages."""
    return f"script {ordinal} (recorded session {quote(state.scripts[ordinal].recorded_session)})"


def _resolve(
    state: BindingState,
    session: str | None,
    request_fingerprint: str,
    first_call_ordinal: int | None,
) -> Result[int, SessionError]:
    """Find or choose the script ordinal of a live session, without committing it."""
    known = state.bound.get(session)
    call_index = 1 if known is None else state.cursors[known] + 1
    other_kind = (
        [key for key in state.bound if key is not None]
        if session is None
        else ([None] if None in state.bound else [])
    )
    if other_kind:
        if session is None:
            message = (
                f"{session_label(None)} made model call {call_index} without a session id, "
                f"but identified sessions ({', '.join(quote(str(k)) for k in other_kind[:3])}) "
                "are already bound; anonymous and identified calls cannot be mixed"
            )
        else:
            message = (
                f"session {quote(session)} made model call {call_index}, but calls without a "
                "session id were already replayed; anonymous and identified calls cannot be "
                "mixed"
            )
        return Failure(
            _failure(
                SESSION_MIXED,
                "mixed-sessions",
                message,
                session=session,
                call_index=call_index,
                request_fingerprint=request_fingerprint,
            )
        )
    if known is not None:
        if first_call_ordinal is not None and first_call_ordinal != known:
            return Failure(
                _failure(
                    SESSION_ORDINAL,
                    "ordinal-conflict",
                    f"session {session_label(session)} asked for script {first_call_ordinal} "
                    f"at model call {call_index} but is bound to {_described(state, known)}",
                    session=session,
                    call_index=call_index,
                    request_fingerprint=request_fingerprint,
                    script=_script_view(state, known),
                )
            )
        return Success(known)
    claimed = set(state.bound.values())
    if session is None:
        wanted: int | None = 0 if first_call_ordinal is None else first_call_ordinal
    elif first_call_ordinal is not None:
        wanted = first_call_ordinal
    else:
        wanted = next((k for k in range(len(state.scripts)) if k not in claimed), None)
    if wanted is None:
        return Failure(
            _failure(
                SESSION_EXTRA,
                "extra-session",
                f"live session {session_label(session)} made model call 1, but all "
                f"{len(state.scripts)} recorded session script(s) are already bound; an "
                "unrecorded session (subagent) appeared",
                session=session,
                call_index=1,
                request_fingerprint=request_fingerprint,
            )
        )
    if not 0 <= wanted < len(state.scripts) or wanted in claimed:
        taken = "is already bound" if wanted in claimed else "does not exist"
        return Failure(
            _failure(
                SESSION_ORDINAL,
                "ordinal-unavailable",
                f"live session {session_label(session)} asked for script {wanted} at model "
                f"call 1, but that script {taken} ({len(state.scripts)} recorded)",
                session=session,
                call_index=1,
                request_fingerprint=request_fingerprint,
            )
        )
    return Success(wanted)


def _advance(
    state: BindingState, session: str | None, ordinal: int, request_fingerprint: str
) -> Result[tuple[BindingState, ScriptedCall], SessionError]:
    """Take the next call of the session's script if it exists and matches the request."""
    script = state.scripts[ordinal]
    cursor = state.cursors[ordinal]
    call_index = cursor + 1
    if cursor >= len(script.calls):
        return Failure(
            _failure(
                SESSION_EXHAUSTED,
                "script-exhausted",
                f"session {session_label(session)} made model call {call_index}, but "
                f"{_described(state, ordinal)} holds only {len(script.calls)} call(s)",
                session=session,
                call_index=call_index,
                request_fingerprint=request_fingerprint,
                script=_script_view(state, ordinal),
            )
        )
    recorded = script.calls[cursor]
    if recorded.request_fingerprint != request_fingerprint:
        return Failure(
            _failure(
                SESSION_REQUEST_CHANGED,
                "request-changed",
                f"model call {call_index} of session {session_label(session)} "
                f"({_described(state, ordinal)}) differs from the recording: request "
                f"{request_fingerprint}, recorded {recorded.request_fingerprint}",
                session=session,
                call_index=call_index,
                request_fingerprint=request_fingerprint,
                script=_script_view(state, ordinal),
                recorded_fingerprint=recorded.request_fingerprint,
            )
        )
    cursors = tuple(
        position + 1 if index == ordinal else position
        for index, position in enumerate(state.cursors)
    )
    bound = {**state.bound, session: ordinal}
    next_state = BindingState(state.scripts, bound, cursors)
    return Success((next_state, ScriptedCall(session, ordinal, call_index, recorded)))


def next_call(
    state: BindingState,
    session: str | None,
    request_fingerprint: str,
    first_call_ordinal: int | None = None,
) -> Result[tuple[BindingState, ScriptedCall], SessionError]:
    """Route one live call: bind the session if new, then take its script's next call.

    `first_call_ordinal` pins a new session to a script (0 = primary, k = child k) instead of
    the next unclaimed one, for children that run concurrently or in the background.
    """
    return _resolve(state, session, request_fingerprint, first_call_ordinal).bind(
        lambda ordinal: _advance(state, session, ordinal, request_fingerprint)
    )


def unconsumed_message(state: BindingState) -> str | None:
    """Describe scripts with calls left over, or None when every script was fully replayed."""
    left = [
        (ordinal, script)
        for ordinal, script in enumerate(state.scripts)
        if state.cursors[ordinal] < len(script.calls)
    ]
    if not left:
        return None
    shown = ", ".join(
        f"{_described(state, ordinal)} used {state.cursors[ordinal]} of {len(script.calls)}"
        for ordinal, script in left[:_SAMPLE]
    )
    return f"{len(left)} recorded session script(s) were not fully consumed: {shown}"


def check_consumed(state: BindingState) -> Result[BindingState, SessionError]:
    """Fail when any recorded call was never replayed (the scenario made fewer calls)."""
    message = unconsumed_message(state)
    if message is None:
        return Success(state)
    return Failure(SessionError(SESSION_UNCONSUMED, message))
