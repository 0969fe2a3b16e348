"""openai-agents through a cassette: `cassette_tool` children recorded, then replayed offline.

The parent's scripted model calls three child tools in one turn (the SDK runs them
concurrently). Recording runs each child on its own model; replay registers no upstream, the
children's models are never asked, and the children arrive in the reverse order. Every tool call
must get its own child's answer (the contrast test shows `as_tool` with a shared scripted model
failing exactly this).
"""

from __future__ import annotations

import dataclasses
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

pytest.importorskip("agents")

from adapters.openai_agents_doubles import (
    EchoChildModel,
    ScriptedModel,
    text_message,
    tool_calls,
)
from agents import Agent, FunctionTool, RunConfig, Runner, Tool
from agents.exceptions import UserError
from agents.items import ToolCallOutputItem
from cassette_provider import (
    CassetteMismatchError,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    install_cassette,
)
from cassette_provider.adapters.openai_agents import (
    cassette_tool,
    openai_agents_provider,
)

NO_TRACING = RunConfig(tracing_disabled=True)


def gated(tool: FunctionTool, turnstile: Turnstile) -> FunctionTool:
    """The same tool, entered only on its turn: a deterministic stand-in for its latency."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(context: Any, arguments: str) -> Any:
        async with turnstile.turn(tool.name):
            return await invoke(context, arguments)

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)


def children(models: dict[str, EchoChildModel]) -> list[Agent[Any]]:
    """The child agents, each on its own model."""
    return [
        Agent(name=name, instructions=f"You are {name}.", model=models[name]) for name in CHILDREN
    ]


async def run_parent(
    registry: ProviderRegistry,
    kids: list[Agent[Any]],
    turnstile: Turnstile,
    session: str,
    task: Any,
) -> dict[str, str]:
    """Run the orchestrator whose model calls every child tool in one turn."""
    parent = SimpleAgent(session_id=session, options={"agent": "orchestrator"})
    tools: list[Tool] = [
        gated(
            cassette_tool(kid, registry=registry, parent=parent, tool_description="report"),
            turnstile,
        )
        for kid in kids
    ]
    model = ScriptedModel(
        [tool_calls([(name, task(name)) for name in CHILDREN]), [text_message("done")]]
    )
    orchestrator = Agent(name="orchestrator", instructions="Collect.", model=model, tools=tools)
    run = await Runner.run(orchestrator, "Collect the reports.", run_config=NO_TRACING)
    return {
        str(item.call_id).removeprefix("call-"): str(item.output)
        for item in run.new_items
        if isinstance(item, ToolCallOutputItem)
    }


async def record(file: Path) -> dict[str, str]:
    """Record with alpha as the slowest child."""
    models = {name: EchoChildModel(answer_for(name)) for name in CHILDREN}
    kids = children(models)
    registry = ProviderRegistry()
    registry.register(openai_agents_provider(kids, run_config=NO_TRACING))
    handle = install_cassette(
        registry, RecordConfig(file=str(file), upstream_provider="openai-agents")
    )
    turnstile = Turnstile(SLOW_ALPHA)
    try:
        received = await run_parent(registry, kids, turnstile, "record-root", task_for)
    finally:
        await handle.dispose()
    assert turnstile.passed == list(SLOW_ALPHA)
    assert all(model.requests == 1 for model in models.values())
    return received


async def test_as_tool_children_recorded_then_replayed_offline_with_latencies_reversed(
    tmp_path: Path,
) -> None:
    file = tmp_path / "orchestrator.cassette.jsonl"
    expected = {name: answer_for(name) for name in CHILDREN}
    assert await record(file) == expected

    silent = {name: EchoChildModel("never asked") for name in CHILDREN}
    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(file)))
    turnstile = Turnstile(SLOW_GAMMA)
    received = await run_parent(registry, children(silent), turnstile, "replay-root", task_for)
    await handle.dispose()

    assert turnstile.passed == list(SLOW_GAMMA)
    assert received == expected
    assert all(model.requests == 0 for model in silent.values())


async def test_a_changed_tool_input_fails_the_run_with_the_mismatch_as_cause(
    tmp_path: Path,
) -> None:
    file = tmp_path / "orchestrator.cassette.jsonl"
    await record(file)

    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(file), assert_consumed=False))
    kids = children({name: EchoChildModel("never asked") for name in CHILDREN})
    with pytest.raises(UserError) as caught:
        await run_parent(
            registry,
            kids,
            Turnstile(SLOW_GAMMA),
            "replay-root",
            lambda name: "PROMPT-CANARY" if name == "beta" else task_for(name),
        )
    await handle.dispose()

    mismatch = caught.value.__cause__
    assert isinstance(mismatch, CassetteMismatchError)
    assert mismatch.diagnostic is not None
    assert mismatch.diagnostic.as_document()["reason"] == "request-changed"
    assert "PROMPT-CANARY" not in str(mismatch)
