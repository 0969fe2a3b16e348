"""Contrast: pydantic-ai's own test double, shared by concurrent children, swaps their answers.

This test documents the problem cassette solves and passes *because* the double is wrong: one
`FunctionModel` scripted with "the next answer" serves three child agents that a parent's tool
starts concurrently, and the child that happens to call first gets the first scripted answer,
whoever it is. Matching by call order cannot tell concurrent siblings apart; the cassette tests in
test_pydantic_ai_adapter.py replay the same scenario correctly in any order.
"""

from __future__ import annotations

import asyncio

import pytest
from adapters.fanout import CHILDREN, SLOW_ALPHA, Turnstile, answer_for, task_for

pydantic_ai = pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent, RunContext  # noqa: E402
from pydantic_ai.messages import (  # noqa: E402
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel  # noqa: E402


def scripted_in_call_order(script: list[str]) -> FunctionModel:
    """A double that answers each model request with the next scripted text, whoever asks."""
    remaining = list(script)

    def next_answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(remaining.pop(0))])

    return FunctionModel(next_answer)


def fan_out_parent(children: dict[str, Agent[None, str]], turnstile: Turnstile) -> Agent[None, str]:
    """A parent whose single tool starts every child concurrently and collects their outputs."""

    def parent_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):
                    return ModelResponse(parts=[TextPart(part.model_response_str())])
        return ModelResponse(parts=[ToolCallPart("consult_children", {})])

    parent: Agent[None, str] = Agent(FunctionModel(parent_model), name="parent")

    @parent.tool
    async def consult_children(ctx: RunContext[None]) -> dict[str, str]:
        async def consult(name: str) -> tuple[str, str]:
            async with turnstile.turn(name):
                run = await children[name].run(task_for(name))
            return name, run.output

        return dict(await asyncio.gather(*(consult(name) for name in CHILDREN)))

    return parent


async def test_shared_call_order_double_hands_children_each_others_answers() -> None:
    # The script is written in start order (alpha, beta, gamma) but alpha is the slowest child.
    double = scripted_in_call_order([answer_for(name) for name in CHILDREN])
    children: dict[str, Agent[None, str]] = {
        name: Agent(double, name=name, instructions=f"You are {name}.") for name in CHILDREN
    }
    turnstile = Turnstile(SLOW_ALPHA)

    outputs = await fan_out_parent(children, turnstile).run("Collect the reports.")

    tool_result = _tool_outputs(outputs.all_messages())
    assert turnstile.passed == list(SLOW_ALPHA)
    assert tool_result["gamma"] == answer_for("alpha")
    assert tool_result["alpha"] == answer_for("gamma")
    assert tool_result != {name: answer_for(name) for name in CHILDREN}


def _tool_outputs(messages: list[ModelMessage]) -> dict[str, str]:
    """The parent tool's returned mapping of child name to child output."""
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, ToolReturnPart) and isinstance(part.content, dict):
                    return {str(k): str(v) for k, v in part.content.items()}
    raise AssertionError("the parent never received its tool's result")
