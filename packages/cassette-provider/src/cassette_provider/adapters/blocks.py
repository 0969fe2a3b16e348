"""Text in and out of content blocks: what a framework child agent consumes and produces."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

CHILD_AGENT_OPTION = "agent"
"""The `agent_options` key naming the child agent a framework provider runs."""


def text_prompt(text: str) -> list[dict[str, object]]:
    """A prompt of one text block."""
    return [{"type": "text", "text": text}]


def prompt_text(prompt: object) -> str:
    """The text a child agent receives: its prompt's text blocks joined by newlines."""
    if isinstance(prompt, str):
        return prompt
    if not isinstance(prompt, list | tuple):
        raise TypeError("subagent prompt must be a string or a list of content blocks")
    return "\n".join(
        str(block["text"])
        for block in prompt
        if isinstance(block, Mapping) and block.get("type") == "text" and "text" in block
    )


def text_result(output: object, structured: Any = None) -> dict[str, object]:
    """A completed `SubagentResult` carrying a child's output as one text block.

    A non-string output (a pydantic model, a dict) is written as JSON text and kept as
    `structured`, already reduced to plain JSON by the caller.
    """
    if isinstance(output, str):
        return {"output": [{"type": "text", "text": output}], "stopReason": "completed"}
    text = json.dumps(structured, ensure_ascii=False, sort_keys=True)
    return {
        "output": [{"type": "text", "text": text}],
        "stopReason": "completed",
        "structured": structured,
    }


def result_text(result: Mapping[str, object]) -> str:
    """The text of a result's top-level text blocks, joined by newlines."""
    output = result.get("output")
    if not isinstance(output, list | tuple):
        return ""
    return "\n".join(
        str(block["text"])
        for block in output
        if isinstance(block, Mapping) and block.get("type") == "text" and "text" in block
    )


def child_agent_name(agent_options: object) -> str:
    """The child agent a request names in `agent_options["agent"]`."""
    name = agent_options.get(CHILD_AGENT_OPTION) if isinstance(agent_options, Mapping) else None
    if not isinstance(name, str) or not name:
        raise ValueError(
            f'subagent request must name its child agent in agent_options["{CHILD_AGENT_OPTION}"]'
        )
    return name
