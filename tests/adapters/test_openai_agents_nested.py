"""openai-agents: a `cassette_tool` inside a child agent records beneath that child (issue 12).

The orchestrator calls `alpha` and `beta` in one turn; each child's own model calls the
`fact_check` tool, built once with the *root* as its parent. While `openai_agents_provider` runs
a child, that child is the tool's parent, so the recording holds the real tree
root -> child -> fact_check (TOPO-5) with both children's grandchildren in flight together.
Replay with default settings (assert_consumed on, MATCH-4) delivers the children's recorded
results in the reverse completion order; the grandchildren are covered, and no model is asked.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from adapters.nested import (
    CHILDREN,
    GRANDCHILD,
    SLOW_ALPHA,
    SLOW_BETA,
    Rendezvous,
    answer_for,
    assert_true_tree,
    claim_for,
    task_for,
    verdict_for,
)

pytest.importorskip("agents")

from adapters.fanout import Turnstile
from adapters.openai_agents_doubles import (
    EchoChildModel,
    GatedAnswerModel,
    RelayModel,
    ScriptedModel,
    text_message,
    tool_calls,
)
from agents import Agent, FunctionTool, Model, RunConfig, Runner, Tool
from agents.items import ToolCallOutputItem
from cassette_format import load_cassette
from cassette_provider import (
    CassetteMismatchError,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    install_cassette,
)
from cassette_provider.adapters.openai_agents import cassette_tool, openai_agents_provider

NO_TRACING = RunConfig(tracing_disabled=True)


def finishing_in_order(tool: FunctionTool, turnstile: Turnstile) -> FunctionTool:
    """The same tool, but it returns only on its turn: children run together, finish in order."""
    invoke = tool.on_invoke_tool

    async def on_invoke_tool(context: Any, arguments: str) -> Any:
        output = await invoke(context, arguments)
        async with turnstile.turn(tool.name):
            return output

    return dataclasses.replace(tool, on_invoke_tool=on_invoke_tool)


@dataclasses.dataclass
class Cast:
    """The agents of one run: the two children, the fact checker and their models."""

    root: SimpleAgent
    children: list[Agent[Any]]
    fact_checker: Agent[Any]
    child_models: dict[str, Model]
    checker_model: Model


def cast_of(registry: ProviderRegistry, session: str, checker_model: Model, live: bool) -> Cast:
    """Children whose `fact_check` tool is built with the root as its parent, as a user would."""
    root = SimpleAgent(session_id=session, options={"agent": "orchestrator"})
    fact_checker = Agent(name=GRANDCHILD, instructions="Check claims.", model=checker_model)
    check = cassette_tool(fact_checker, registry=registry, parent=root, tool_description="check")
    models: dict[str, Model] = {
        name: RelayModel(GRANDCHILD, claim_for(name), name) if live else EchoChildModel("never")
        for name in CHILDREN
    }
    children = [
        Agent(name=name, instructions=f"You are {name}.", model=models[name], tools=[check])
        for name in CHILDREN
    ]
    return Cast(root, children, fact_checker, models, checker_model)


async def run_orchestrator(
    registry: ProviderRegistry, cast: Cast, turnstile: Turnstile
) -> dict[str, str]:
    """The orchestrator's model calls both child tools in one turn; their outputs by child."""
    tools: list[Tool] = [
        finishing_in_order(
            cassette_tool(kid, registry=registry, parent=cast.root, tool_description="review"),
            turnstile,
        )
        for kid in cast.children
    ]
    model = ScriptedModel(
        [tool_calls([(name, task_for(name)) for name in CHILDREN]), [text_message("done")]]
    )
    orchestrator = Agent(name="orchestrator", instructions="Review.", model=model, tools=tools)
    run = await Runner.run(orchestrator, "Review the drafts.", run_config=NO_TRACING)
    return {
        str(item.call_id).removeprefix("call-"): str(item.output)
        for item in run.new_items
        if isinstance(item, ToolCallOutputItem)
    }


async def record(file: Path) -> dict[str, str]:
    """Record with alpha as the slower child and both grandchildren in flight together."""
    rendezvous = Rendezvous(len(CHILDREN))
    registry = ProviderRegistry()
    cast = cast_of(registry, "record-root", GatedAnswerModel(rendezvous.meet, verdict_for), True)
    registry.register(
        openai_agents_provider([*cast.children, cast.fact_checker], run_config=NO_TRACING)
    )
    handle = install_cassette(
        registry, RecordConfig(file=str(file), upstream_provider="openai-agents")
    )
    turnstile = Turnstile(SLOW_ALPHA)
    try:
        received = await run_orchestrator(registry, cast, turnstile)
    finally:
        await handle.dispose()
    assert turnstile.passed == list(SLOW_ALPHA)
    assert sorted(rendezvous.arrived) == sorted(claim_for(name) for name in CHILDREN)
    return received


async def test_nested_cassette_tool_records_the_true_tree(tmp_path: Path) -> None:
    """TOPO-5: each fact_check call's parentKey is the call key of the child that made it."""
    file = tmp_path / "nested.cassette.jsonl"
    assert await record(file) == {name: answer_for(name) for name in CHILDREN}
    assert_true_tree(file)


async def test_nested_tree_replays_with_defaults_and_sibling_latencies_flipped(
    tmp_path: Path,
) -> None:
    """MATCH-4 with defaults: children delivered in reverse order, grandchildren covered."""
    file = tmp_path / "nested.cassette.jsonl"
    expected = {name: answer_for(name) for name in CHILDREN}
    assert await record(file) == expected

    registry = ProviderRegistry()  # no upstream: nothing can run live
    silent = EchoChildModel("never asked")
    cast = cast_of(registry, "replay-root", silent, False)
    handle = install_cassette(registry, ReplayConfig(file=str(file)))
    turnstile = Turnstile(SLOW_BETA)
    received = await run_orchestrator(registry, cast, turnstile)
    tally = handle.replay_tally()
    await handle.dispose()  # assert_consumed is on: the nested calls count as covered

    assert turnstile.passed == list(SLOW_BETA)
    assert received == expected
    assert silent.requests == 0
    assert all(
        isinstance(model, EchoChildModel) and model.requests == 0
        for model in cast.child_models.values()
    )
    assert tally is not None
    grandchildren = {i.call_key for i in load_cassette(file).interactions if i.parent_key != "root"}
    assert {call.call_key for call in tally.covered} == grandchildren
    assert tally.consumed == len(CHILDREN)
    assert tally.remaining == 0


async def test_strict_subtrees_leaves_the_nested_calls_unconsumed(
    tmp_path: Path,
) -> None:
    """strict_subtrees keeps the reference check: the two nested calls, which replay never
    re-runs beneath a delivered child, are left unconsumed and dispose fails (MATCH-4)."""
    file = tmp_path / "nested.cassette.jsonl"
    await record(file)

    registry = ProviderRegistry()
    cast = cast_of(registry, "replay-root", EchoChildModel("never asked"), False)
    handle = install_cassette(registry, ReplayConfig(file=str(file), strict_subtrees=True))
    await run_orchestrator(registry, cast, Turnstile(SLOW_BETA))
    tally = handle.replay_tally()
    with pytest.raises(CassetteMismatchError, match="not consumed"):
        await handle.dispose()

    assert tally is not None
    assert tally.consumed == len(CHILDREN)
    assert tally.remaining == len(CHILDREN)
