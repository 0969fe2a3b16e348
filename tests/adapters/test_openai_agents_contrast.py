"""Contrast: openai-agents children (`Agent.as_tool`) sharing one scripted model swap answers.

This test documents the problem cassette solves and passes *because* the double is wrong: the
parent's model calls three `Agent.as_tool` children in one turn, the SDK runs those tool calls
concurrently, and a single scripted model handing out canned answers in call order gives the
first answer to whichever child reaches it first. test_openai_agents_adapter.py replays the same
scenario through a cassette, where every child gets its own answer in any order.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from adapters.fanout import CHILDREN, SLOW_ALPHA, Turnstile, answer_for, task_for

pytest.importorskip("agents")

from adapters.openai_agents_doubles import ScriptedModel, text_message, tool_calls
from agents import Agent, FunctionTool, RunConfig, Runner, Tool
from agents.items import ToolCallOutputItem


def gated(tool: FunctionTool, turnstile: Turnstile) -> FunctionTool:
    """The same tool, entered only on its turn: a deterministic stand-in for its latency."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(context: Any, arguments: str) -> Any:
        async with turnstile.turn(tool.name):
            return await invoke(context, arguments)

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)


def outputs_by_tool(items: list[Any]) -> dict[str, str]:
    """Each tool call's output, keyed by the tool the parent called (call ids name the tool)."""
    return {
        str(item.call_id).removeprefix("call-"): str(item.output)
        for item in items
        if isinstance(item, ToolCallOutputItem)
    }


async def test_shared_scripted_model_hands_as_tool_children_each_others_answers() -> None:
    # Canned answers written in start order (alpha, beta, gamma); alpha is the slowest child.
    shared = ScriptedModel([[text_message(answer_for(name))] for name in CHILDREN])
    turnstile = Turnstile(SLOW_ALPHA)
    children: list[Tool] = [
        gated(
            Agent(name=name, instructions=f"You are {name}.", model=shared).as_tool(
                name, f"Ask {name} for its report."
            ),
            turnstile,
        )
        for name in CHILDREN
    ]
    parent_model = ScriptedModel(
        [tool_calls([(name, task_for(name)) for name in CHILDREN]), [text_message("done")]]
    )
    parent = Agent(
        name="parent", instructions="Collect reports.", model=parent_model, tools=children
    )

    run = await Runner.run(
        parent, "Collect the reports.", run_config=RunConfig(tracing_disabled=True)
    )

    received = outputs_by_tool(run.new_items)
    assert turnstile.passed == list(SLOW_ALPHA)
    assert received["gamma"] == answer_for("alpha")
    assert received["alpha"] == answer_for("gamma")
    assert received != {name: answer_for(name) for name in CHILDREN}
