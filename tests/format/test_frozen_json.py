"""Record payloads are deeply immutable (issue 15): frozen views at decode, plain copies out."""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from cassette_canonical import JsonValue
from cassette_format import (
    FullRequestView,
    ResultOutcome,
    header_line,
    interaction_line,
    parse_cassette,
    seal_interaction,
)
from cassette_format.records.frozen_json import (
    FrozenArray,
    FrozenObject,
    freeze_array,
    freeze_json,
    freeze_object,
    thaw_json,
)

from format.builders import make_body, make_header

HEADER = make_header(storage="full")


def _loaded_outcome_and_request() -> tuple[ResultOutcome, FullRequestView]:
    """A full-storage interaction sealed, written as a line and read back by the loader."""
    sealed = seal_interaction(make_body(1, storage="full"), HEADER.hash).unwrap()
    document = header_line(HEADER).unwrap() + interaction_line(sealed).unwrap()
    interaction = parse_cassette(document).unwrap().interactions[0]
    outcome, request = interaction.outcome, interaction.request
    assert isinstance(outcome, ResultOutcome)
    assert isinstance(request, FullRequestView)
    return outcome, request


def test_decoded_payloads_are_frozen_views_all_the_way_down() -> None:  # FMT-13, FMT-14
    outcome, request = _loaded_outcome_and_request()
    assert isinstance(outcome.result, FrozenObject)
    assert isinstance(outcome.output, FrozenArray)
    tool_result = outcome.output[2]
    assert isinstance(tool_result, FrozenObject)
    assert isinstance(tool_result["content"], FrozenArray)
    assert isinstance(request.value.prompt, FrozenArray)
    assert isinstance(request.value.agent_options, FrozenObject)


def test_frozen_views_offer_no_way_to_change_them() -> None:
    outcome, request = _loaded_outcome_and_request()
    result: Any = outcome.result
    blocks: Any = outcome.output
    with pytest.raises(TypeError):
        result["stopReason"] = "aborted"
    with pytest.raises(TypeError):
        del result["output"]
    with pytest.raises(TypeError):
        blocks[0] = {}
    with pytest.raises(AttributeError):
        blocks.append({})
    with pytest.raises(AttributeError):
        result.update({})
    with pytest.raises(AttributeError):
        result._data = {}
    prompt: Any = request.value.prompt
    with pytest.raises(TypeError):
        prompt[0]["text"] = "changed"
    assert outcome.stop_reason in {"completed", "max-tokens", "aborted", "weird"}


def test_to_json_is_a_fresh_plain_copy_that_never_reaches_the_record() -> None:
    outcome, request = _loaded_outcome_and_request()
    before = outcome.to_json()
    copied = outcome.to_json()
    result = copied["result"]
    assert isinstance(result, dict)
    output = result["output"]
    assert isinstance(output, list)
    first = output[0]
    assert isinstance(first, dict)
    first["text"] = "changed"
    output.clear()
    assert outcome.to_json() == before
    prompt = request.to_json()["value"]
    assert isinstance(prompt, dict)
    assert type(prompt["prompt"]) is list
    assert type(prompt["agentOptions"]) is dict


def test_freezing_copies_the_callers_data() -> None:
    block: dict[str, JsonValue] = {"type": "text", "text": "kept"}
    result: dict[str, JsonValue] = {"output": [block], "stopReason": "completed"}
    outcome = ResultOutcome(result=freeze_object(result), redactions=0)
    block["text"] = "changed after freezing"
    result["stopReason"] = "aborted"
    assert outcome.result == {
        "output": [{"type": "text", "text": "kept"}],
        "stopReason": "completed",
    }


def test_plain_payloads_given_to_a_constructor_are_frozen_copies() -> None:
    result: Any = {"output": [{"type": "text", "text": "kept"}], "stopReason": "completed"}
    outcome = ResultOutcome(result=result, redactions=0)
    result["output"].clear()
    assert isinstance(outcome.result, FrozenObject)
    assert outcome.output == [{"type": "text", "text": "kept"}]


def test_equality_compares_content_with_views_and_plain_values() -> None:
    frozen = freeze_json({"a": [1, {"b": None}], "c": 1.5})
    assert frozen == {"a": [1, {"b": None}], "c": 1.5}
    assert frozen == freeze_json({"a": [1, {"b": None}], "c": 1.5})
    assert frozen != {"a": [1, {"b": False}], "c": 1.5}
    assert freeze_array([1, 2]) == [1, 2]
    assert freeze_array([1, 2]) != (1, 2)
    assert isinstance(frozen, Mapping)
    assert isinstance(freeze_array([]), Sequence)
    with pytest.raises(TypeError):
        hash(frozen)


def test_thaw_and_pickle_round_trip() -> None:
    value: JsonValue = {"a": [1, {"b": "x"}], "d": -0.0}
    frozen = freeze_json(value)
    thawed = thaw_json(frozen)
    assert thawed == value
    assert thawed is not value
    restored = pickle.loads(pickle.dumps(frozen))
    assert isinstance(restored, FrozenObject)
    assert restored == value


def test_deep_payloads_freeze_and_thaw_without_recursion() -> None:  # CANON-9
    nested: JsonValue = {"type": "text", "text": "leaf"}
    for depth in range(50_000):
        nested = {"type": "tool-result", "toolCallId": f"c{depth}", "content": [nested]}
    frozen = freeze_object({"output": [nested]})
    thawed = frozen.thaw()
    walked: object = thawed
    for _ in range(50_000):
        assert isinstance(walked, dict)
        content = walked["content"] if "content" in walked else walked["output"]
        assert isinstance(content, list)
        walked = content[0]
    assert isinstance(walked, dict)
    assert walked["type"] == "tool-result"


def test_a_cyclic_value_is_copied_without_looping() -> None:
    looped: dict[str, Any] = {"type": "text"}
    looped["self"] = looped
    frozen = freeze_object(looped)
    inner = frozen["self"]
    assert isinstance(inner, FrozenObject)
    assert inner["type"] == "text"
    thawed = frozen.thaw()
    assert thawed["self"] is thawed
    assert thawed is not looped


def test_thawing_never_hands_out_a_nested_views_own_data() -> None:
    """A frozen view held inside an adopted payload is copied on thaw, never shared."""
    from cassette_format.records.frozen_json import adopt_object

    inner = freeze_object({"k": [1]})
    outer = adopt_object({"inner": inner})  # type: ignore[dict-item] # a view inside plain data
    thawed = outer.thaw()
    nested: Any = thawed["inner"]
    nested["k"].append(2)
    nested["new"] = True
    assert inner == {"k": [1]}
    refrozen = freeze_object({"inner": inner})  # type: ignore[dict-item] # as above
    assert refrozen.thaw()["inner"] == {"k": [1]}
