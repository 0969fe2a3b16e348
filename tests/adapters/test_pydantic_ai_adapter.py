"""pydantic-ai through a cassette: a parent's tool fans out to three children, offline replay.

Recording runs each child `Agent` on its own `FunctionModel` (the real upstream, per child);
replay has no upstream at all and `ALLOW_MODEL_REQUESTS = False`, and the children arrive in the
reverse order. Every child's output must land with the right caller (the contrast test shows a
shared call-order double failing exactly this).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from adapters.fanout import (
    CHILDREN,
    SLOW_ALPHA,
    SLOW_GAMMA,
    Turnstile,
    answer_for,
    task_for,
)

pytest.importorskip("pydantic_ai")

from cassette_format import load_cassette
from cassette_provider import (
    CassetteMismatchError,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    install_cassette,
)
from cassette_provider.adapters.pydantic_ai import SubagentDelegate, pydantic_ai_provider
from pydantic_ai import Agent, RunContext
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models import override_allow_model_requests
from pydantic_ai.models.function import AgentInfo, FunctionModel


@dataclass
class Deps:
    """What the parent's tool needs: the delegate, the arrival order and the prompt wording."""

    children: SubagentDelegate
    turnstile: Turnstile
    task: Any = task_for


def parent_agent() -> Agent[Deps, str]:
    """A parent that calls one tool, which consults every child concurrently."""

    def parent_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        for part in messages[-1].parts if isinstance(messages[-1], ModelRequest) else ():
            if isinstance(part, ToolReturnPart):
                return ModelResponse(parts=[TextPart(part.model_response_str())])
        return ModelResponse(parts=[ToolCallPart("consult_children", {})])

    parent: Agent[Deps, str] = Agent(FunctionModel(parent_model), deps_type=Deps, name="parent")

    @parent.tool
    async def consult_children(ctx: RunContext[Deps]) -> dict[str, str]:
        async def consult(name: str) -> tuple[str, str]:
            async with ctx.deps.turnstile.turn(name):
                return name, await ctx.deps.children.ask(name, ctx.deps.task(name))

        return dict(await asyncio.gather(*(consult(name) for name in CHILDREN)))

    return parent


def own_model_child(name: str) -> Agent[None, str]:
    """A child on its own model, which always gives this child's answer."""

    def child_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(answer_for(name))])

    return Agent(FunctionModel(child_model), name=name, instructions=f"You are {name}.")


def tool_outputs(messages: list[ModelMessage]) -> dict[str, str]:
    """The parent tool's returned mapping of child name to child output."""
    for message in messages:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, ToolReturnPart) and isinstance(part.content, dict):
                return {str(k): str(v) for k, v in part.content.items()}
    raise AssertionError("the parent never received its tool's result")


def parent_facts(session_id: str) -> SimpleAgent:
    """The parent as the cassette sees it; the session id is volatile and never matched."""
    return SimpleAgent(session_id=session_id, options={"agent": "parent"})


async def record(file: Path) -> dict[str, str]:
    """Record the fan-out with alpha as the slowest child."""
    registry = ProviderRegistry()
    registry.register(pydantic_ai_provider([own_model_child(n) for n in CHILDREN]))
    handle = install_cassette(
        registry, RecordConfig(file=str(file), upstream_provider="pydantic-ai")
    )
    deps = Deps(SubagentDelegate(registry, parent_facts("record-root")), Turnstile(SLOW_ALPHA))
    try:
        run = await parent_agent().run("Collect the reports.", deps=deps)
    finally:
        await handle.dispose()
    assert deps.turnstile.passed == list(SLOW_ALPHA)
    return tool_outputs(run.all_messages())


async def test_fan_out_recorded_then_replayed_offline_with_latencies_reversed(
    tmp_path: Path,
) -> None:
    file = tmp_path / "fan-out.cassette.jsonl"
    expected = {name: answer_for(name) for name in CHILDREN}
    assert await record(file) == expected
    recorded = load_cassette(file)  # the recording verifies: schema, chain, contiguity
    assert recorded.header.provider.upstream == "pydantic-ai"
    assert sorted(i.call_key.split("/")[1].split("-")[0] for i in recorded.interactions) == list(
        CHILDREN
    )

    registry = ProviderRegistry()  # no upstream: replay must not need one
    handle = install_cassette(registry, ReplayConfig(file=str(file)))
    deps = Deps(SubagentDelegate(registry, parent_facts("replay-root")), Turnstile(SLOW_GAMMA))
    with override_allow_model_requests(False):
        run = await parent_agent().run("Collect the reports.", deps=deps)
    await handle.dispose()  # every recorded child was consumed

    assert deps.turnstile.passed == list(SLOW_GAMMA)
    assert tool_outputs(run.all_messages()) == expected


async def test_a_changed_child_prompt_is_a_mismatch_naming_request_changed(
    tmp_path: Path,
) -> None:
    file = tmp_path / "fan-out.cassette.jsonl"
    await record(file)

    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(file), assert_consumed=False))
    secret_prompt = "Summarise the alpha report in two lines, PROMPT-CANARY."
    deps = Deps(
        SubagentDelegate(registry, parent_facts("replay-root")),
        Turnstile(SLOW_GAMMA),
        task=lambda name: secret_prompt if name == "alpha" else task_for(name),
    )
    with override_allow_model_requests(False), pytest.raises(CassetteMismatchError) as caught:
        await parent_agent().run("Collect the reports.", deps=deps)
    await handle.dispose()

    diagnostic = caught.value.diagnostic
    assert diagnostic is not None
    document = diagnostic.as_document()
    assert document["reason"] == "request-changed"
    assert "PROMPT-CANARY" not in f"{caught.value} {document}"
