"""The by-request binding policy: who asks and what is asked choose the script, not call order."""

from __future__ import annotations

import json

import pytest
from cassette_canonical import JsonValue
from cassette_format.problem import FormatProblem
from cassette_topology.sessions import (
    BY_REQUEST,
    FIRST_CALL,
    SESSION_AMBIGUOUS,
    SESSION_EXTRA,
    SESSION_LOG_FORMAT,
    SESSION_ORDINAL,
    SESSION_UNCONSUMED,
    SESSION_UNMATCHED,
    BindingState,
    LiveModelCall,
    ScriptedCall,
    SessionLog,
    SessionLogHeader,
    SessionScript,
    binding_fingerprint,
    check_consumed,
    cover_subagent,
    derive_script,
    encode_session_log,
    has_volatile_ids,
    normalize_volatile_ids,
    parse_session_log,
    request_fingerprints,
    route_call,
    start_binding,
)
from hypothesis import given
from hypothesis import strategies as st
from llmreplay.builders import call, digest
from returns.result import Failure, Success

CANARY = "CANARY-PROMPT-b07e"


def _opening(role: str) -> JsonValue:
    return {"messages": [{"role": "user", "content": f"{CANARY} {role} opens"}]}


def _script(
    ordinal: int,
    recorded: str,
    requests: list[JsonValue],
    *,
    call_key: str | None = None,
    declared: int | None = None,
    answers: str | None = None,
) -> SessionScript:
    said = answers or recorded
    calls = tuple(call(i, r, {"answer": f"{said}.{i}"}) for i, r in enumerate(requests, 1))
    log = SessionLog(
        SessionLogHeader(
            recorded,
            "2026-08-18T00:00:00.000Z",
            None if ordinal == 0 else "root",
            call_key=call_key,
            first_call_ordinal=declared,
        ),
        calls,
    )
    return derive_script(log, ordinal)


def _live(
    session: str | None,
    request: JsonValue,
    *,
    ordinal: int | None = None,
    call_key: str | None = None,
) -> LiveModelCall:
    return LiveModelCall(
        session, digest(request), binding_fingerprint(request).unwrap(), ordinal, call_key
    )


def _ok(state: BindingState, live: LiveModelCall) -> tuple[BindingState, ScriptedCall]:
    match route_call(state, live):
        case Success(pair):
            routed: tuple[BindingState, ScriptedCall] = pair
            return routed
        case Failure(error):
            raise AssertionError(error.message)
    raise AssertionError("unreachable")


def _fails(state: BindingState, live: LiveModelCall) -> FormatProblem:
    routed = route_call(state, live)
    assert isinstance(routed, Failure)
    error: FormatProblem = routed.failure()
    for text in (error.message, json.dumps(error.diagnostic)):
        assert CANARY not in text  # metadata only
    return error


def _three() -> tuple[SessionScript, ...]:
    roles = ("parent", "alpha", "beta")
    return tuple(
        _script(k, f"rec-{role}", [_opening(role), {"q": f"{role} 2"}])
        for k, role in enumerate(roles)
    )


def test_the_design_notes_first_call_policy_is_still_the_pure_default() -> None:
    assert start_binding(()).policy == FIRST_CALL
    state = start_binding(_three(), FIRST_CALL)
    state, _ = _ok(state, _live("p", _opening("parent")))
    error = _fails(state, _live("b", _opening("beta")))  # first-call: beta gets alpha's script
    assert 'recorded session "rec-alpha"' in error.message


@st.composite
def _runs(draw: st.DrawFn) -> tuple[int, list[int], list[int]]:
    """Script count, the live order in which sessions first call, and an interleaving."""
    count = draw(st.integers(1, 5))
    sizes = draw(st.lists(st.integers(1, 3), min_size=count, max_size=count))
    calls = [owner for owner, size in enumerate(sizes) for _ in range(size)]
    return count, sizes, draw(st.permutations(calls))


@given(_runs())
def test_any_start_order_binds_each_session_to_the_script_of_its_first_request(
    run: tuple[int, list[int], list[int]],
) -> None:
    # issue 13: by who asks and what is asked; LLMREPLAY-6's own cursors
    count, sizes, order = run
    scripts = tuple(
        _script(k, f"rec-{k}", [{"role": k, "turn": t} for t in range(1, sizes[k] + 1)])
        for k in range(count)
    )
    state = start_binding(scripts, BY_REQUEST)
    made = dict.fromkeys(range(count), 0)
    for owner in order:
        made[owner] += 1
        request: JsonValue = {"role": owner, "turn": made[owner]}
        state, routed = _ok(state, _live(f"live-{owner}", request))
        assert routed.ordinal == owner
        assert routed.call.chunks == ({"answer": f"rec-{owner}.{made[owner]}"},)
    assert isinstance(check_consumed(state), Success)


def test_identical_scripts_tie_in_first_call_order() -> None:
    twin: list[JsonValue] = [_opening("child"), {"q": "same"}]
    scripts = (
        _script(0, "rec-p", [_opening("p")]),
        _script(1, "a", twin, answers="same"),
        _script(2, "b", twin, answers="same"),
    )
    state = start_binding(scripts, BY_REQUEST)
    state, first = _ok(state, _live("x", _opening("child")))
    state, second = _ok(state, _live("y", _opening("child")))
    assert (first.ordinal, second.ordinal) == (1, 2)


def test_identical_openings_with_different_scripts_fail_naming_both() -> None:
    scripts = (
        _script(0, "rec-p", [_opening("p")]),
        _script(1, "rec-a", [_opening("child"), {"q": "a"}]),
        _script(2, "rec-b", [_opening("child"), {"q": "b"}]),
    )
    state = start_binding(scripts, BY_REQUEST)
    error = _fails(state, _live("live-b", _opening("child")))
    assert error.code == SESSION_AMBIGUOUS
    assert (error.session, error.call_index) == ("live-b", 1)
    assert '"rec-a"' in error.message
    assert '"rec-b"' in error.message
    assert error.diagnostic is not None
    assert error.diagnostic["reason"] == "ambiguous-first-request"


@pytest.mark.parametrize("beta_first", [True, False])
def test_declared_ordinals_break_ties_in_either_order(beta_first: bool) -> None:
    scripts = (
        _script(0, "rec-p", [_opening("p")]),
        _script(1, "rec-a", [_opening("child"), {"q": "a"}], declared=7),
        _script(2, "rec-b", [_opening("child"), {"q": "b"}], declared=3),
    )
    state = start_binding(scripts, BY_REQUEST)
    state, _ = _ok(state, _live("p", _opening("p")))
    lives: list[tuple[str, int, JsonValue, int]] = [
        ("b", 3, {"q": "b"}, 2),
        ("a", 7, {"q": "a"}, 1),
    ]
    if not beta_first:
        lives.reverse()
    for session, ordinal, _follow_up, expected in lives:
        state, bound = _ok(state, _live(session, _opening("child"), ordinal=ordinal))
        assert bound.ordinal == expected
    for session, _ordinal, follow_up, expected in lives:
        state, second = _ok(state, _live(session, follow_up))
        assert (second.ordinal, second.call_index) == (expected, 2)
    assert isinstance(check_consumed(state), Success)
    missing = _fails(start_binding(scripts, BY_REQUEST), _live("c", _opening("child"), ordinal=1))
    assert missing.code == SESSION_ORDINAL  # ordinal 1 was never declared
    assert "does not exist" in missing.message


@pytest.mark.parametrize("beta_first", [True, False])
def test_subagent_call_keys_tell_identical_openings_apart(beta_first: bool) -> None:
    scripts = (
        _script(0, "rec-p", [_opening("p")]),
        _script(1, "rec-a", [_opening("child"), {"q": "a"}], call_key="root/alpha-1~1"),
        _script(2, "rec-b", [_opening("child"), {"q": "b"}], call_key="root/beta-2~1"),
    )
    state = start_binding(scripts, BY_REQUEST)
    keyed = [("sb", "root/beta-2~1", 2), ("sa", "root/alpha-1~1", 1)]
    if not beta_first:
        keyed.reverse()
    for session, key, expected in keyed:
        state, bound = _ok(state, _live(session, _opening("child"), call_key=key))
        assert bound.ordinal == expected
    stranger = _fails(state, _live("sc", _opening("child"), call_key="root/gamma-3~1"))
    assert stranger.code == SESSION_UNMATCHED
    assert '"root/gamma-3~1"' in stranger.message


def test_a_first_request_no_script_begins_with_is_unmatched_and_changes_nothing() -> None:
    state = start_binding(_three(), BY_REQUEST)
    error = _fails(state, _live("live-x", _opening("gamma")))
    assert error.code == SESSION_UNMATCHED
    assert (error.session, error.call_index) == ("live-x", 1)
    assert 'live session "live-x"' in error.message
    assert "model call 1" in error.message
    state, bound = _ok(state, _live("live-x", _opening("beta")))
    assert bound.ordinal == 2


def test_an_extra_session_is_still_extra() -> None:
    # LLMREPLAY-8
    state = start_binding(_three()[:1], BY_REQUEST)
    state, _ = _ok(state, _live("p", _opening("parent")))
    assert _fails(state, _live("q", _opening("parent"))).code == SESSION_EXTRA


def test_volatile_tool_call_ids_do_not_prevent_binding() -> None:
    def with_ids(call_id: str) -> JsonValue:
        return {
            "messages": [
                {"role": "user", "content": "go"},
                {
                    "role": "assistant",
                    "tool_calls": [{"id": call_id, "type": "function", "function": {"name": "f"}}],
                },
                {"role": "tool", "tool_call_id": call_id, "content": "done"},
            ]
        }

    assert normalize_volatile_ids(with_ids("call_A")) == normalize_volatile_ids(with_ids("call_B"))
    assert digest(with_ids("call_A")) != digest(with_ids("call_B"))
    state = start_binding((_script(0, "rec-p", [with_ids("call_recorded")]),), BY_REQUEST)
    state, bound = _ok(state, _live("p", with_ids("call_live_42")))
    assert bound.call_index == 1


def test_a_per_run_prompt_cache_key_does_not_change_the_binding_fingerprint() -> None:
    def sent(key: str, text: str = "go") -> JsonValue:  # a transport request, as logged
        body: JsonValue = {"messages": [{"role": "user", "content": text}], "prompt_cache_key": key}
        return {"body": body, "method": "POST", "path": "/v1/chat/completions"}

    first, second = sent("agents-sdk:run:1a2b"), sent("agents-sdk:run:9f8e")
    assert has_volatile_ids(first)
    assert digest(first) != digest(second)
    assert binding_fingerprint(first) == binding_fingerprint(second)
    assert binding_fingerprint(first) != binding_fingerprint(sent("agents-sdk:run:1a2b", "stop"))
    state = start_binding((_script(0, "rec-p", [first]),), BY_REQUEST)
    state, bound = _ok(state, _live("p", second))
    assert bound.call_index == 1


def test_normalization_walks_deep_requests_iteratively() -> None:
    deep: JsonValue = {"tool_call_id": "x"}
    for _ in range(5000):
        deep = [deep]
    assert isinstance(binding_fingerprint(deep), Success)


def test_scripts_of_replayed_subagents_and_beneath_them_are_covered() -> None:
    scripts = (
        _script(0, "rec-p", [_opening("p")]),
        _script(1, "rec-a", [_opening("a")], call_key="root/alpha-1~1"),
        _script(2, "rec-g", [_opening("g")], call_key="root/alpha-1~1/grand-9~1"),
        _script(3, "rec-b", [_opening("b")], call_key="root/beta-2~1"),
    )
    state = start_binding(scripts, BY_REQUEST)
    state, _ = _ok(state, _live(None, _opening("p")))
    state = cover_subagent(state, "root/alpha-1~1")
    left = check_consumed(state)
    assert isinstance(left, Failure)
    assert left.failure().code == SESSION_UNCONSUMED
    assert '"rec-b"' in left.failure().message
    assert '"rec-a"' not in left.failure().message
    assert '"rec-g"' not in left.failure().message
    assert isinstance(check_consumed(cover_subagent(state, "root/beta-2~1")), Success)


def test_subagent_sessions_may_mix_with_the_anonymous_parent() -> None:
    scripts = (
        _script(0, "anonymous", [_opening("p"), {"q": "p2"}]),
        _script(1, "rec-a", [_opening("a")], call_key="root/alpha-1~1"),
    )
    state = start_binding(scripts, BY_REQUEST)
    state, _ = _ok(state, _live(None, _opening("p")))
    state, child = _ok(state, _live("subagent:x", _opening("a"), call_key="root/alpha-1~1"))
    state, parent = _ok(state, _live(None, {"q": "p2"}))
    assert (child.ordinal, parent.ordinal, parent.call_index) == (1, 0, 2)


def test_header_binding_facts_round_trip_and_are_validated() -> None:
    header = SessionLogHeader(
        "child", "2026-08-18T00:00:00.000Z", "root", call_key="root/a-1~1", first_call_ordinal=2
    )
    text = encode_session_log(SessionLog(header, (call(1, {"q": 1}, {"a": 1}),))).unwrap()
    first = json.loads(text.splitlines()[0])
    assert (first["callKey"], first["firstCallOrdinal"]) == ("root/a-1~1", 2)
    assert parse_session_log(text).unwrap().header == header
    for field, bad in (("callKey", ""), ("firstCallOrdinal", -1), ("firstCallOrdinal", True)):
        record = {k: v for k, v in first.items() if k != "hash"} | {field: bad}
        record["hash"] = digest(record)
        lines = [json.dumps(record, separators=(",", ":"), sort_keys=True)]
        error = parse_session_log("\n".join(lines) + "\n").failure()
        assert error.code == SESSION_LOG_FORMAT
        assert error.line == 1
        assert f"header.{field}" in error.message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.sampled_from(["a", "call_1", "function"]),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["id", "type", "tool_call_id", "callId", "content", "x"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@given(_JSON)
def test_the_no_copy_scan_agrees_with_normalization(value: JsonValue) -> None:
    # the replayer's fast path: nothing to renumber means one digest serves both purposes
    exact, normalized = request_fingerprints(value).unwrap()
    assert normalized == digest(normalize_volatile_ids(value).unwrap())
    if not has_volatile_ids(value):
        assert normalized == exact


def _keyed_children() -> tuple[SessionScript, ...]:
    return (
        _script(0, "planner", [_opening("parent")]),
        _script(1, "rec-alpha", [_opening("alpha")], call_key="root/alpha-0123456789ab~1"),
        _script(2, "rec-beta", [_opening("beta")], call_key="root/beta-ba9876543210~1"),
    )


@pytest.mark.parametrize(
    ("live_key", "expected"),
    [
        ("root/beta-ba9876543210~1", "rec-beta"),  # the child's own model prompt changed
        ("root/beta-fedcba987654~1", "rec-beta"),  # its subagent prompt changed the digest
    ],
)
def test_an_unmatched_child_names_the_closest_recorded_script_first(
    live_key: str, expected: str
) -> None:
    state = start_binding(_keyed_children(), BY_REQUEST)
    changed = _live(f"subagent:{live_key}", _opening("beta, changed"), call_key=live_key)
    error = _fails(state, changed)
    assert error.code == SESSION_UNMATCHED
    assert error.message.startswith(
        "model call 1 differs from the closest recording, "
        f'script 2 (recorded session "{expected}"):'
    )
    assert error.diagnostic is not None
    script = error.diagnostic["script"]
    assert isinstance(script, dict)
    assert script["recordedSession"] == expected
    recorded = _keyed_children()[2].first_binding_fingerprint
    assert error.diagnostic["recordedRequestFingerprint"] == recorded


def test_an_unmatched_session_names_the_script_recorded_under_its_own_name() -> None:
    state = start_binding(_keyed_children(), BY_REQUEST)
    error = _fails(state, _live("planner", _opening("parent, changed")))
    assert '(recorded session "planner")' in error.message
    assert 'live session "planner"' in error.message


def test_an_unmatched_session_of_a_kind_no_script_has_names_no_closest() -> None:
    state = start_binding(_keyed_children()[:1], BY_REQUEST)  # the parent's script alone
    error = _fails(state, _live("stray", _opening("x"), call_key="root/other-0123456789ab~1"))
    assert "closest" not in error.message
    assert error.message.startswith('live session "stray" under subagent call')


def test_an_unmatched_child_with_the_same_first_request_is_told_its_call_key_changed() -> None:
    state = start_binding(_keyed_children(), BY_REQUEST)
    moved = "root/beta-fedcba987654~1"
    error = _fails(state, _live(f"subagent:{moved}", _opening("beta"), call_key=moved))
    assert error.message.startswith(
        'model call 1 differs from the closest recording, script 2 (recorded session "rec-beta"):'
        ' the same first request, recorded under subagent call "root/beta-ba9876543210~1", runs'
        f' under subagent call "{moved}";'
    )
