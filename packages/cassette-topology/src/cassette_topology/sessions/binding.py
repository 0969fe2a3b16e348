"""The binding state machine that routes live model calls to recorded per-session scripts.

Two named policies choose the script a new live session binds to on its first call:

- `by-request` (the default of the replayer): the unclaimed script whose topology identity
  (the subagent call key, or none) and first request (fingerprinted after volatile-id
  normalization) match the live session's. Ties go to a declared first-call ordinal, else to
  first-call order when the tied scripts are identical, else fail with SESSION_AMBIGUOUS.
- `first-call` (the design note's rule, LLMREPLAY-6): the lowest-numbered unclaimed script, or
  the script an explicit first-call ordinal names.

Either way a bound session then advances its own cursor; live ids are never compared with
recorded ids. Calls without a session id are one anonymous session bound to the primary script
(LLMREPLAY-7); mixing them with identified calls, an extra live session (LLMREPLAY-8), an
exhausted script and a changed request all fail with a metadata-only diagnostic naming the
session and its call index. A failed call changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal

from cassette_canonical import JsonValue
from cassette_format.problem import FormatProblem
from cassette_format.sessions import RecordedCall, quote
from returns.result import Failure, Result, Success

from cassette_topology.sessions.closest import closest_script
from cassette_topology.sessions.errors import (
    SESSION_AMBIGUOUS,
    SESSION_EXHAUSTED,
    SESSION_EXTRA,
    SESSION_MIXED,
    SESSION_ORDINAL,
    SESSION_REQUEST_CHANGED,
    SESSION_UNCONSUMED,
    SESSION_UNMATCHED,
    session_label,
)
from cassette_topology.sessions.scripts import SessionScript

_SAMPLE: Final = 5

#: How a new live session chooses its script.
BindingPolicy = Literal["by-request", "first-call"]
#: Bind to the unclaimed script whose identity and first request match.
BY_REQUEST: Final = "by-request"
#: Bind to the lowest-numbered unclaimed script (the design note's rule).
FIRST_CALL: Final = "first-call"
BINDING_POLICIES: Final = (BY_REQUEST, FIRST_CALL)


@dataclass(frozen=True, slots=True)
class BindingState:
    """Scripts, which live session holds which script, and each script's cursor.

    `bound` maps a live session id (None for the anonymous session) to a script ordinal;
    `cursors[k]` is how many calls of script k were replayed; `keyed` holds the live sessions
    that bound under a subagent call key and `covered` the call keys the subagent cassette
    replayed (their scripts, and scripts beneath them, need not be consumed). Transitions copy,
    never mutate.
    """

    scripts: tuple[SessionScript, ...]
    bound: Mapping[str | None, int]
    cursors: tuple[int, ...]
    policy: BindingPolicy = FIRST_CALL
    keyed: frozenset[str | None] = frozenset()
    covered: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class LiveModelCall:
    """One live model call as binding sees it: who asks, what is asked, and any pin.

    `binding_fingerprint` is the request's fingerprint after volatile-id normalization (None:
    the exact fingerprint is used); `call_key` is the subagent call key of a session running
    under the subagent cassette.
    """

    session: str | None
    request_fingerprint: str
    binding_fingerprint: str | None = None
    first_call_ordinal: int | None = None
    call_key: str | None = None

    @property
    def compared_fingerprint(self) -> str:
        """What the by-request policy compares with the recorded calls."""
        return self.binding_fingerprint or self.request_fingerprint


@dataclass(frozen=True, slots=True)
class ScriptedCall:
    """The recorded call a live call was routed to, and where it sits in its script."""

    session: str | None
    ordinal: int
    call_index: int
    call: RecordedCall


def start_binding(
    scripts: tuple[SessionScript, ...], policy: BindingPolicy = FIRST_CALL
) -> BindingState:
    """A state in which no live session has called yet, binding by the named policy."""
    return BindingState(scripts, {}, tuple(0 for _ in scripts), policy)


def cover_subagent(state: BindingState, call_key: str) -> BindingState:
    """Note that the subagent cassette replayed `call_key`: its session never calls the model."""
    return replace(state, covered=state.covered | {call_key})


def is_covered(state: BindingState, script: SessionScript) -> bool:
    """Whether a script belongs to a replayed subagent call or to a call beneath one."""
    key = script.call_key
    if key is None:
        return False
    return any(key == covered or key.startswith(f"{covered}/") for covered in state.covered)


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
) -> FormatProblem:
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
    return FormatProblem(
        message, code=code, session=session, call_index=call_index, diagnostic=diagnostic
    )


def _described(state: BindingState, ordinal: int) -> str:
    """`script <k> (recorded session "<id>")` for messages."""
    return f"script {ordinal} (recorded session {quote(state.scripts[ordinal].recorded_session)})"


def _mixing_failure(state: BindingState, live: LiveModelCall) -> FormatProblem | None:
    """Anonymous and identified calls cannot be mixed (subagent-keyed sessions may mix)."""
    session = live.session
    exempt = state.keyed if state.policy == BY_REQUEST else frozenset()
    if session is not None and live.call_key is not None and state.policy == BY_REQUEST:
        return None
    known = state.bound.get(session)
    call_index = 1 if known is None else state.cursors[known] + 1
    other_kind: list[str | None]
    if session is None:
        other_kind = [key for key in state.bound if key is not None and key not in exempt]
    else:
        other_kind = [None] if None in state.bound else []
    if not other_kind:
        return None
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
    return _failure(
        SESSION_MIXED,
        "mixed-sessions",
        message,
        session=session,
        call_index=call_index,
        request_fingerprint=live.request_fingerprint,
    )


def _extra(state: BindingState, live: LiveModelCall) -> FormatProblem:
    """A new live session when every script is already bound (LLMREPLAY-8)."""
    return _failure(
        SESSION_EXTRA,
        "extra-session",
        f"live session {session_label(live.session)} made model call 1, but all "
        f"{len(state.scripts)} recorded session script(s) are already bound; an "
        "unrecorded session (subagent) appeared",
        session=live.session,
        call_index=1,
        request_fingerprint=live.request_fingerprint,
    )


def _pinned(state: BindingState, live: LiveModelCall, wanted: int) -> Result[int, FormatProblem]:
    """Check that a pinned script exists and is unclaimed."""
    claimed = set(state.bound.values())
    if 0 <= wanted < len(state.scripts) and wanted not in claimed:
        return Success(wanted)
    taken = "is already bound" if wanted in claimed else "does not exist"
    return Failure(
        _failure(
            SESSION_ORDINAL,
            "ordinal-unavailable",
            f"live session {session_label(live.session)} asked for script {wanted} at model "
            f"call 1, but that script {taken} ({len(state.scripts)} recorded)",
            session=live.session,
            call_index=1,
            request_fingerprint=live.request_fingerprint,
        )
    )


def _declared_target(state: BindingState, ordinal: int) -> int:
    """The script that declared `ordinal` when recording (-1: none), else its position."""
    if all(script.declared_ordinal is None for script in state.scripts):
        return ordinal
    return next(
        (k for k, script in enumerate(state.scripts) if script.declared_ordinal == ordinal), -1
    )


def _choose_first_call(state: BindingState, live: LiveModelCall) -> Result[int, FormatProblem]:
    """The design note's rule: the ordinal's script, else the lowest-numbered unclaimed one."""
    claimed = set(state.bound.values())
    ordinal = live.first_call_ordinal
    if live.session is None:
        return _pinned(state, live, 0 if ordinal is None else ordinal)
    if ordinal is not None:
        return _pinned(state, live, ordinal)
    wanted = next((k for k in range(len(state.scripts)) if k not in claimed), None)
    return Failure(_extra(state, live)) if wanted is None else Success(wanted)


def _script_body(script: SessionScript) -> tuple[object, ...]:
    """What makes two scripts interchangeable: every call's request and response."""
    return tuple(
        (script.binding_fingerprint_at(i), call.streamed, call.chunks, call.meta)
        for i, call in enumerate(script.calls)
    )


def _identity(call_key: str | None) -> str:
    """`subagent call "<key>"`, or `no subagent call`, for messages."""
    return "no subagent call" if call_key is None else f"subagent call {quote(call_key)}"


def _unmatched(state: BindingState, live: LiveModelCall, unclaimed: list[int]) -> FormatProblem:
    """No unclaimed script begins with the live first request: name the closest recorded one.

    The closest script leads, by its recorded session name (stable, in the user's logs); the
    live id follows, since it may be a fresh uuid or a call key whose digest changed.
    """
    wanted = live.compared_fingerprint
    identity = "" if live.call_key is None else f" under subagent call {quote(live.call_key)}"
    live_part = f"live session {session_label(live.session)}{identity}"
    closest = closest_script(state.scripts, unclaimed, live.session, live.call_key)
    if closest is None:
        message = (
            f"{live_part} made model call 1 (request {wanted}), but none of the "
            f"{len(unclaimed)} unclaimed recorded session script(s) begins with that request"
        )
        script, recorded = None, None
    else:
        recorded = state.scripts[closest].first_binding_fingerprint
        lead = f"model call 1 differs from the closest recording, {_described(state, closest)}"
        if recorded == wanted:  # the same first request under another subagent call
            difference = (
                f"the same first request, recorded under "
                f"{_identity(state.scripts[closest].call_key)}, runs under "
                f"{_identity(live.call_key)}"
            )
        else:
            difference = f"request {wanted}, recorded {recorded}"
        message = (
            f"{lead}: {difference}; {live_part} made model call 1, and none of the "
            f"{len(unclaimed)} unclaimed recorded session script(s) begins with that request"
        )
        script = _script_view(state, closest)
    return _failure(
        SESSION_UNMATCHED,
        "no-script-for-first-request",
        message,
        session=live.session,
        call_index=1,
        request_fingerprint=live.request_fingerprint,
        script=script,
        recorded_fingerprint=recorded,
    )


def _choose_by_request(state: BindingState, live: LiveModelCall) -> Result[int, FormatProblem]:
    """The unclaimed script whose identity and first request match; ties resolved or refused."""
    if live.session is None:
        return _pinned(
            state, live, 0 if live.first_call_ordinal is None else live.first_call_ordinal
        )
    if live.first_call_ordinal is not None:
        return _pinned(state, live, _declared_target(state, live.first_call_ordinal))
    claimed = set(state.bound.values())
    unclaimed = [k for k in range(len(state.scripts)) if k not in claimed]
    if not unclaimed:
        return Failure(_extra(state, live))
    wanted = live.compared_fingerprint
    candidates = [
        k
        for k in unclaimed
        if state.scripts[k].call_key == live.call_key
        and state.scripts[k].first_binding_fingerprint == wanted
    ]
    if not candidates:
        return Failure(_unmatched(state, live, unclaimed))
    first = _script_body(state.scripts[candidates[0]])
    if all(_script_body(state.scripts[k]) == first for k in candidates[1:]):
        return Success(candidates[0])
    named = ", ".join(_described(state, k) for k in candidates[:_SAMPLE])
    return Failure(
        _failure(
            SESSION_AMBIGUOUS,
            "ambiguous-first-request",
            f"live session {session_label(live.session)} made model call 1 (request {wanted}), "
            f"which begins {len(candidates)} different recorded scripts: {named}; declare a "
            "first-call ordinal for these sessions when recording and replaying",
            session=live.session,
            call_index=1,
            request_fingerprint=live.request_fingerprint,
        )
    )


def _resolve(state: BindingState, live: LiveModelCall) -> Result[int, FormatProblem]:
    """Find or choose the script ordinal of a live session, without committing it."""
    mixed = _mixing_failure(state, live)
    if mixed is not None:
        return Failure(mixed)
    known = state.bound.get(live.session)
    if known is None:
        if state.policy == BY_REQUEST:
            return _choose_by_request(state, live)
        return _choose_first_call(state, live)
    ordinal = live.first_call_ordinal
    if state.policy == BY_REQUEST and ordinal is not None:
        ordinal = _declared_target(state, ordinal)
    if ordinal is not None and ordinal != known:
        call_index = state.cursors[known] + 1
        return Failure(
            _failure(
                SESSION_ORDINAL,
                "ordinal-conflict",
                f"session {session_label(live.session)} asked for script {ordinal} "
                f"at model call {call_index} but is bound to {_described(state, known)}",
                session=live.session,
                call_index=call_index,
                request_fingerprint=live.request_fingerprint,
                script=_script_view(state, known),
            )
        )
    return Success(known)


def _advance(
    state: BindingState, live: LiveModelCall, ordinal: int
) -> Result[tuple[BindingState, ScriptedCall], FormatProblem]:
    """Take the next call of the session's script if it exists and matches the request."""
    session = live.session
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
                request_fingerprint=live.request_fingerprint,
                script=_script_view(state, ordinal),
            )
        )
    recorded = script.calls[cursor]
    if state.policy == BY_REQUEST:
        asked, expected = live.compared_fingerprint, script.binding_fingerprint_at(cursor)
    else:
        asked, expected = live.request_fingerprint, recorded.matched_fingerprint
    if asked != expected:
        return Failure(
            _failure(
                SESSION_REQUEST_CHANGED,
                "request-changed",
                f"model call {call_index} of session {session_label(session)} "
                f"({_described(state, ordinal)}) differs from the recording: request "
                f"{asked}, recorded {expected}",
                session=session,
                call_index=call_index,
                request_fingerprint=live.request_fingerprint,
                script=_script_view(state, ordinal),
                recorded_fingerprint=recorded.request_fingerprint,
            )
        )
    cursors = tuple(
        position + 1 if index == ordinal else position
        for index, position in enumerate(state.cursors)
    )
    keyed = state.keyed | {session} if live.call_key is not None else state.keyed
    next_state = replace(
        state, bound={**state.bound, session: ordinal}, cursors=cursors, keyed=keyed
    )
    return Success((next_state, ScriptedCall(session, ordinal, call_index, recorded)))


def route_call(
    state: BindingState, live: LiveModelCall
) -> Result[tuple[BindingState, ScriptedCall], FormatProblem]:
    """Route one live call: bind the session if new, then take its script's next call."""
    return _resolve(state, live).bind(lambda ordinal: _advance(state, live, ordinal))


def next_call(
    state: BindingState,
    session: str | None,
    request_fingerprint: str,
    first_call_ordinal: int | None = None,
    *,
    binding_fingerprint: str | None = None,
    call_key: str | None = None,
) -> Result[tuple[BindingState, ScriptedCall], FormatProblem]:
    """Route one live call: bind the session if new, then take its script's next call.

    `first_call_ordinal` pins a new session to a script (0 = primary, k = child k, or under
    `by-request` the script that declared k) instead of letting the policy choose, for
    children that run concurrently or in the background.
    """
    live = LiveModelCall(
        session, request_fingerprint, binding_fingerprint, first_call_ordinal, call_key
    )
    return route_call(state, live)


def unconsumed_message(state: BindingState) -> str | None:
    """Describe scripts with calls left over, or None when every script was fully replayed."""
    left = [
        (ordinal, script)
        for ordinal, script in enumerate(state.scripts)
        if state.cursors[ordinal] < len(script.calls) and not is_covered(state, script)
    ]
    if not left:
        return None
    shown = ", ".join(
        f"{_described(state, ordinal)} used {state.cursors[ordinal]} of {len(script.calls)}"
        for ordinal, script in left[:_SAMPLE]
    )
    return f"{len(left)} recorded session script(s) were not fully consumed: {shown}"


def check_consumed(state: BindingState) -> Result[BindingState, FormatProblem]:
    """Fail when any recorded call was never replayed (the scenario made fewer calls)."""
    message = unconsumed_message(state)
    if message is None:
        return Success(state)
    return Failure(FormatProblem(message, code=SESSION_UNCONSUMED))
