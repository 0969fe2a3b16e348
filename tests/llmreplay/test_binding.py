"""The binding state machine: first-call-order binding, own cursors, loud failures."""

from __future__ import annotations

import json

import pytest
from cassette_canonical import JsonValue
from cassette_format.problem import FormatProblem
from cassette_topology.sessions import (
    SESSION_EXHAUSTED,
    SESSION_EXTRA,
    SESSION_MIXED,
    SESSION_ORDINAL,
    SESSION_REQUEST_CHANGED,
    SESSION_UNCONSUMED,
    BindingState,
    ScriptedCall,
    SessionScript,
    check_consumed,
    next_call,
    start_binding,
)
from hypothesis import given
from hypothesis import strategies as st
from llmreplay.builders import call, digest
from returns.result import Failure, Success

CANARY_PROMPT = "CANARY-PROMPT-8d1f"
CANARY_RESULT = "CANARY-RESULT-41c7"


def _request(owner: int, index: int) -> JsonValue:
    return {"prompt": f"{CANARY_PROMPT} script {owner} call {index}"}


def _scripts(*sizes: int) -> tuple[SessionScript, ...]:
    return tuple(
        SessionScript(
            ordinal,
            f"recorded-{ordinal}",
            tuple(
                call(i, _request(ordinal, i), {"text": f"{CANARY_RESULT} {ordinal}.{i}"})
                for i in range(1, size + 1)
            ),
        )
        for ordinal, size in enumerate(sizes)
    )


def _ok(
    state: BindingState, session: str | None, owner: int, index: int, ordinal: int | None = None
) -> tuple[BindingState, ScriptedCall]:
    match next_call(state, session, digest(_request(owner, index)), ordinal):
        case Success(pair):
            bound: tuple[BindingState, ScriptedCall] = pair
            return bound
        case Failure(error):
            raise AssertionError(error.message)
    raise AssertionError("unreachable")


def _fails(
    state: BindingState, session: str | None, owner: int, index: int, ordinal: int | None = None
) -> FormatProblem:
    result = next_call(state, session, digest(_request(owner, index)), ordinal)
    assert isinstance(result, Failure)
    error: FormatProblem = result.failure()
    return error


def _assert_metadata_only(error: FormatProblem) -> None:
    # DIAG-6 in spirit: no prompt or result bodies in the message or the diagnostic
    for text in (error.message, json.dumps(error.diagnostic)):
        assert CANARY_PROMPT not in text
        assert CANARY_RESULT not in text


def test_first_caller_claims_the_primary_and_each_new_session_the_next() -> None:
    # LLMREPLAY-6: live ids never equal recorded ones; binding is by first-call order
    state = start_binding(_scripts(2, 1, 1))
    state, first = _ok(state, "live-x", 0, 1)
    state, second = _ok(state, "live-y", 1, 1)
    state, third = _ok(state, "live-x", 0, 2)
    state, fourth = _ok(state, "live-z", 2, 1)
    assert [(c.session, c.ordinal, c.call_index) for c in (first, second, third, fourth)] == [
        ("live-x", 0, 1),
        ("live-y", 1, 1),
        ("live-x", 0, 2),
        ("live-z", 2, 1),
    ]
    assert third.call.chunks == ({"text": f"{CANARY_RESULT} 0.2"},)
    assert isinstance(check_consumed(state), Success)


def test_anonymous_calls_are_one_session_bound_to_the_primary() -> None:
    # LLMREPLAY-7: the single-session path
    state = start_binding(_scripts(2, 1))
    state, first = _ok(state, None, 0, 1)
    state, second = _ok(state, None, 0, 2)
    assert (first.ordinal, second.ordinal, second.call_index) == (0, 0, 2)


def test_extra_live_session_fails_naming_it() -> None:
    # LLMREPLAY-8
    state = start_binding(_scripts(1, 1))
    state, _ = _ok(state, "parent", 0, 1)
    state, _ = _ok(state, "child", 1, 1)
    error = _fails(state, "surprise-child", 1, 1)
    assert error.code == SESSION_EXTRA
    assert error.session == "surprise-child"
    assert error.call_index == 1
    assert '"surprise-child"' in error.message
    assert "model call 1" in error.message
    assert "2 recorded session script(s)" in error.message
    _assert_metadata_only(error)


def test_exhausted_script_fails_naming_session_and_call_index() -> None:
    state = start_binding(_scripts(2))
    state, _ = _ok(state, "parent", 0, 1)
    state, _ = _ok(state, "parent", 0, 2)
    error = _fails(state, "parent", 0, 3)
    assert error.code == SESSION_EXHAUSTED
    assert (error.session, error.call_index) == ("parent", 3)
    assert 'session "parent" made model call 3' in error.message
    assert "holds only 2 call(s)" in error.message
    assert error.diagnostic is not None
    assert error.diagnostic["reason"] == "script-exhausted"
    _assert_metadata_only(error)


def test_changed_request_fails_with_fingerprints_only() -> None:
    state = start_binding(_scripts(2, 1))
    state, _ = _ok(state, "parent", 0, 1)
    changed: JsonValue = {"prompt": f"{CANARY_PROMPT} rephrased"}
    result = next_call(state, "parent", digest(changed))
    error = result.failure()
    assert error.code == SESSION_REQUEST_CHANGED
    assert (error.session, error.call_index) == ("parent", 2)
    assert 'model call 2 of session "parent"' in error.message
    assert digest(changed) in error.message
    assert digest(_request(0, 2)) in error.message
    assert error.diagnostic is not None
    assert error.diagnostic["recordedRequestFingerprint"] == digest(_request(0, 2))
    _assert_metadata_only(error)
    # a failed call commits nothing: the right request still gets call 2
    _state, retried = _ok(state, "parent", 0, 2)
    assert retried.call_index == 2


def test_a_failed_first_call_does_not_claim_a_script() -> None:
    state = start_binding(_scripts(1, 1))
    error = _fails(state, "parent", 1, 1)  # asks with the child's request
    assert error.code == SESSION_REQUEST_CHANGED
    state, bound = _ok(state, "parent", 0, 1)
    assert bound.ordinal == 0


@pytest.mark.parametrize("anonymous_first", [True, False])
def test_mixing_anonymous_and_identified_calls_fails(anonymous_first: bool) -> None:
    # LLMREPLAY-7 open point, resolved: fail loudly
    state = start_binding(_scripts(2, 1))
    if anonymous_first:
        state, _ = _ok(state, None, 0, 1)
        error = _fails(state, "child", 1, 1)
        assert '"child"' in error.message
    else:
        state, _ = _ok(state, "parent", 0, 1)
        error = _fails(state, None, 0, 2)
        assert "<anonymous> made model call 1" in error.message  # its own first call
        assert error.call_index == 1
    assert error.code == SESSION_MIXED
    _assert_metadata_only(error)


def test_explicit_first_call_ordinal_binds_a_background_child() -> None:
    # LLMREPLAY-11: child 2 starts its first call before child 1
    state = start_binding(_scripts(1, 1, 1))
    state, _ = _ok(state, "parent", 0, 1)
    state, second_child = _ok(state, "bg-2", 2, 1, ordinal=2)
    state, first_child = _ok(state, "bg-1", 1, 1)  # the lowest unclaimed script
    assert (second_child.ordinal, first_child.ordinal) == (2, 1)


def test_explicit_ordinal_errors() -> None:
    state = start_binding(_scripts(1, 2))
    state, _ = _ok(state, "parent", 0, 1)
    taken = _fails(state, "child", 0, 1, ordinal=0)
    assert taken.code == SESSION_ORDINAL
    assert "already bound" in taken.message
    missing = _fails(state, "child", 1, 1, ordinal=5)
    assert "does not exist" in missing.message
    state, _ = _ok(state, "child", 1, 1, ordinal=1)
    conflict = _fails(state, "child", 1, 2, ordinal=0)
    assert conflict.code == SESSION_ORDINAL
    assert conflict.call_index == 2


def test_unconsumed_scripts_are_reported() -> None:
    state = start_binding(_scripts(2, 1))
    state, _ = _ok(state, "parent", 0, 1)
    error = check_consumed(state).failure()
    assert error.code == SESSION_UNCONSUMED
    assert 'script 0 (recorded session "recorded-0") used 1 of 2' in error.message
    assert 'script 1 (recorded session "recorded-1") used 0 of 1' in error.message


@st.composite
def _interleavings(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """Script sizes and a random interleaving of live sessions' calls (session k makes sizes[k])."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    calls = [owner for owner, size in enumerate(sizes) for _ in range(size)]
    return sizes, draw(st.permutations(calls))


@given(_interleavings())
def test_every_session_gets_the_script_of_its_first_call_rank(
    case: tuple[list[int], list[int]],
) -> None:
    # LLMREPLAY-6 under random interleavings: the k-th live session to call gets script k,
    # and every call it makes is answered from that script, in its own order
    sizes, order = case
    rank: dict[int, int] = {}
    for live in order:
        rank.setdefault(live, len(rank))
    scripts = _scripts(*(sizes[live] for live in sorted(rank, key=rank.__getitem__)))
    state = start_binding(scripts)
    made = dict.fromkeys(rank, 0)
    for live in order:
        made[live] += 1
        state, routed = _ok(state, f"live-{live}", rank[live], made[live])
        assert routed.ordinal == rank[live]
        assert routed.call.chunks == ({"text": f"{CANARY_RESULT} {rank[live]}.{made[live]}"},)
    assert isinstance(check_consumed(state), Success)
