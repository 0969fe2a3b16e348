"""Request and parent-context normalization and fingerprints (NORM-*)."""

from __future__ import annotations

import pytest
from cassette_provider import SimpleAgent, StartRequest
from cassette_provider.live.normalize import (
    normalize_parent_context,
    normalize_parent_context_text,
    normalize_request,
)
from cassette_provider.live.snapshot import snapshot
from cassette_topology import parent_context_fingerprint, request_fingerprint, request_metadata
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success


def _request(**fields: object) -> StartRequest:
    return StartRequest(parent=SimpleAgent(), **fields)  # type: ignore[arg-type]


def test_norm4_request_fingerprint_vector() -> None:  # NORM-4
    request = _request(prompt=[{"type": "text", "text": "prompt:audit"}], label="audit")
    normalized = normalize_request(request).unwrap()
    assert request_fingerprint(normalized).unwrap() == (
        "sha256:314d2395805a9d5aafebf28cef1e2cc0e455d7d77db2c2098dbd39f2d559005f"
    )


def test_norm5_metadata_prompt_bytes() -> None:  # NORM-5
    request = _request(prompt=[{"type": "text", "text": "prompt:audit"}], label="audit")
    metadata = request_metadata(normalize_request(request).unwrap()).unwrap()
    assert metadata.prompt_bytes == 39
    assert metadata.prompt_blocks == 1


def test_norm11_parent_context_vectors() -> None:  # NORM-11
    parent = SimpleAgent()
    plain = normalize_parent_context(parent, inherits_parent_context=False).unwrap()
    assert plain == {"options": {}, "session": {}}
    assert parent_context_fingerprint(plain).unwrap() == (
        "sha256:071170d5f14968667bb3029474bcc3e3488ac58bed1a4ae90ec08669c43db6ed"
    )
    inheriting = normalize_parent_context(parent, inherits_parent_context=True).unwrap()
    assert parent_context_fingerprint(inheriting).unwrap() == (
        "sha256:58c0f783a4e39958070178fdac040de764fe6ce429d1ec041b6e027707687f34"
    )


def test_norm2_optional_fields_and_lossy_request() -> None:  # NORM-2
    normalized = normalize_request(_request(prompt="p", max_depth=2)).unwrap()
    assert normalized == {"prompt": "p", "maxDepth": 2}
    lossy = normalize_request(_request(prompt=[2**53 + 1]))
    assert isinstance(lossy, Failure)
    assert str(lossy.failure()) == "subagent cassette request is not lossless plain JSON"
    assert isinstance(normalize_request(_request(prompt=("a",))), Failure)


@pytest.mark.parametrize(
    ("tool_filter", "message"),
    [
        ([], "subagent cassette toolFilter must be an object"),
        ({"deny": [], "only": []}, "subagent cassette toolFilter.only is not supported"),
        ({"allow": [1]}, "subagent cassette toolFilter.allow must be an array of strings"),
    ],
)
def test_norm3_tool_filter_errors(tool_filter: object, message: str) -> None:  # NORM-3
    result = normalize_request(_request(prompt=[], tool_filter=tool_filter))
    assert isinstance(result, Failure)
    assert isinstance(result.failure(), TypeError)
    assert str(result.failure()) == message


def test_norm1_snapshot_rules() -> None:  # NORM-1
    shared = {"a": 1}
    assert snapshot({"x": shared, "y": shared}) == Success({"x": {"a": 1}, "y": {"a": 1}})
    cyclic: list[object] = []
    cyclic.append(cyclic)
    assert isinstance(snapshot(cyclic), Failure)
    assert isinstance(snapshot(-0.0), Failure)
    assert isinstance(snapshot(float("nan")), Failure)
    assert isinstance(snapshot({1: "a"}), Failure)
    assert snapshot(2**60) == Success(2**60)


def test_norm1_snapshot_is_iterative() -> None:  # NORM-1
    deep: list[object] = []
    cursor = deep
    for _ in range(20_000):
        nested: list[object] = []
        cursor.append(nested)
        cursor = nested
    assert isinstance(snapshot(deep), Success)


def _turn_events() -> list[dict[str, object]]:
    call = "raw-call-7"
    return [
        {"type": "turn/start", "seq": 0, "data": {"turn": 1}},
        {
            "type": "user/message",
            "seq": 1,
            "surfaceOp": "append",
            "data": {"id": "u1", "role": "user", "content": [{"type": "text", "text": "go"}]},
        },
        {
            "type": "assistant/message",
            "seq": 2,
            "surfaceOp": "append",
            "data": {
                "message": {
                    "id": "a1",
                    "role": "assistant",
                    "content": [{"type": "tool-call", "id": call, "name": "probe"}],
                }
            },
        },
        {
            "type": "tool/result",
            "seq": 3,
            "surfaceOp": "append",
            "data": {
                "message": {
                    "id": "t1",
                    "role": "user",
                    "content": [{"type": "tool-result", "toolCallId": call, "content": []}],
                    "source": {"kind": "tool", "callId": call},
                }
            },
        },
        {"type": "turn/end", "seq": 4, "data": {}},
        {"type": "user/message", "seq": 5, "surfaceOp": "append", "data": {"role": "user"}},
    ]


def test_norm8_to_10_inherited_messages_scrub_ids_and_skip_open_turn() -> None:  # NORM-8..10
    parent = SimpleAgent(events=_turn_events())
    context = normalize_parent_context(parent, inherits_parent_context=True).unwrap()
    messages = context["inheritedMessages"]
    assert messages == [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "tool-call", "id": "call-1", "name": "probe"}]},
        {
            "role": "user",
            "content": [{"type": "tool-result", "toolCallId": "call-1", "content": []}],
            "source": {"kind": "tool", "callId": "call-1"},
        },
    ]
    other = SimpleAgent(events=[{**e, "seq": e["seq"]} for e in _turn_events()])
    assert normalize_parent_context(other, inherits_parent_context=True).unwrap() == context


def test_norm7_session_composition_and_errors() -> None:  # NORM-7
    parent = SimpleAgent(
        options={"model": "m"},
        cwd="/w",
        origin="cli",
        delegation_depth=0,
        composed_preset="p",
        has_approval=True,
    )
    context = normalize_parent_context(parent, inherits_parent_context=False).unwrap()
    assert context == {
        "options": {"model": "m"},
        "session": {"cwd": "/w", "origin": "cli", "delegationDepth": 0},
        "composition": {"agentPreset": "p", "approvalPolicy": "never"},
    }
    lossy = normalize_parent_context(
        SimpleAgent(options={"x": object()}), inherits_parent_context=False
    )
    assert str(lossy.failure()) == "parent Agent options are not lossless plain JSON"


_ODD = st.sampled_from([object(), (1,), float("nan"), -0.0, 1e16, 0.5, "s", None, [1.0]])


@given(
    options=st.one_of(st.none(), st.dictionaries(st.sampled_from(["a", "b"]), _ODD, max_size=2)),
    preset=st.sampled_from([None, "p", 3]),
    sandbox=_ODD,
    depth=st.sampled_from([None, 1, 2.5, object()]),
    inherits=st.booleans(),
)
def test_norm7_an_uncopied_context_is_refused_and_proved_as_the_copied_one(
    options: dict[str, object] | None,
    preset: object,
    sandbox: object,
    depth: object,
    inherits: bool,
) -> None:  # NORM-7, NORM-1: copied=False changes no verdict, message or text (issue 24)
    parent = SimpleAgent(
        composed_preset=preset,  # type: ignore[arg-type]
        sandbox_mode=sandbox,
        delegation_depth=depth,  # type: ignore[arg-type]
        events=_turn_events(),
    )
    parent._options = options  # type: ignore[assignment] # None: no options at all
    copied = normalize_parent_context_text(parent, inherits, copied=True)
    checked = normalize_parent_context_text(parent, inherits, copied=False)
    if isinstance(copied, Success):
        assert checked.unwrap() == copied.unwrap()
    else:
        assert str(checked.failure()) == str(copied.failure())
