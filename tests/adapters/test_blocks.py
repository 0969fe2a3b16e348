"""The adapters' pure edges: prompt text in, result blocks out, child names, tool arguments."""

from __future__ import annotations

import pytest
from cassette_provider.adapters.blocks import (
    child_agent_name,
    prompt_text,
    result_text,
    text_prompt,
    text_result,
)


def test_prompt_text_joins_text_blocks_and_skips_the_rest() -> None:
    prompt = [*text_prompt("first"), {"type": "image", "attachment": {}}, *text_prompt("second")]
    assert prompt_text(prompt) == "first\nsecond"
    assert prompt_text("plain") == "plain"
    with pytest.raises(TypeError, match="content blocks"):
        prompt_text(42)


def test_text_result_is_a_completed_result_and_keeps_structured_output() -> None:
    assert text_result("done") == {
        "output": [{"type": "text", "text": "done"}],
        "stopReason": "completed",
    }
    structured = text_result({"b": 1}, {"b": 1})
    assert structured["structured"] == {"b": 1}
    assert result_text(structured) == '{"b": 1}'
    assert result_text({"output": "not blocks"}) == ""


def test_child_agent_name_comes_from_agent_options() -> None:
    assert child_agent_name({"agent": "alpha"}) == "alpha"
    for options in (None, {}, {"agent": ""}, {"agent": 3}, ["agent"]):
        with pytest.raises(ValueError, match='agent_options\\["agent"\\]'):
            child_agent_name(options)


def test_openai_agents_tool_input_accepts_only_an_input_string() -> None:
    pytest.importorskip("agents")
    from cassette_provider.adapters.openai_agents import tool_input

    assert tool_input('{"input": "go"}') == "go"
    for bad in ("not json", "[]", '{"input": 1}', "{}"):
        with pytest.raises(ValueError, match="arguments"):
            tool_input(bad)
