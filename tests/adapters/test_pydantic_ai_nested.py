"""pydantic-ai: a delegate called inside a child run records beneath that child (issue 12).

The parent's tool asks `alpha` and `beta` concurrently through one `SubagentDelegate` built with
the root as its parent; each child's own tool asks the `fact_check` agent through the *same*
delegate (it is in the children's deps). While `pydantic_ai_provider` runs a child, that child is
the delegate's parent, so the recording holds root -> child -> fact_check (TOPO-5), with both
grandchildren in flight together. Replay with default settings (assert_consumed on, MATCH-4)
delivers the children in the reverse completion order, covers the grandchildren and asks no model.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from adapters.fanout import Turnstile
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

pytest.importorskip("pydantic_ai")

from cassette_format import load_cassette
from cassette_provider import (
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
    UserPromptPart,
)
from pydantic_ai.models import override_allow_model_requests
from pydantic_ai.models.function import AgentInfo, FunctionModel


@dataclass
class Deps:
    """What every tool needs: the one delegate, and (for the parent) the completion order."""

    delegate: SubagentDelegate
    turnstile: Turnstile


def tool_return(messages: list[ModelMessage]) -> ToolReturnPart | None:
    """The tool's answer in the latest request, if a tool has answered."""
    last = messages[-1]
    for part in last.parts if isinstance(last, ModelRequest) else ():
        if isinstance(part, ToolReturnPart):
            return part
    return None


def user_prompt(messages: list[ModelMessage]) -> str:
    """The run's user prompt text."""
    for message in messages:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                return part.content
    raise AssertionError("the run holds no user prompt")


def parent_agent() -> Agent[Deps, str]:
    """A parent whose one tool asks both children together; they finish in the turnstile order."""

    def parent_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        answered = tool_return(messages)
        if answered is not None:
            return ModelResponse(parts=[TextPart(answered.model_response_str())])
        return ModelResponse(parts=[ToolCallPart("review_drafts", {})])

    parent: Agent[Deps, str] = Agent(FunctionModel(parent_model), deps_type=Deps, name="parent")

    @parent.tool
    async def review_drafts(ctx: RunContext[Deps]) -> dict[str, str]:
        async def review(name: str) -> tuple[str, str]:
            answer = await ctx.deps.delegate.ask(name, task_for(name))
            async with ctx.deps.turnstile.turn(name):
                return name, answer

        return dict(await asyncio.gather(*(review(name) for name in CHILDREN)))

    return parent


def child_agent(name: str, asked: list[str]) -> Agent[Deps, str]:
    """A child whose own tool asks the fact checker through the shared delegate."""

    def child_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(name)
        answered = tool_return(messages)
        if answered is not None:
            return ModelResponse(parts=[TextPart(f"{name}: {answered.model_response_str()}")])
        return ModelResponse(parts=[ToolCallPart("check_claim", {})])

    child: Agent[Deps, str] = Agent(FunctionModel(child_model), deps_type=Deps, name=name)

    @child.tool
    async def check_claim(ctx: RunContext[Deps]) -> str:
        return await ctx.deps.delegate.ask(GRANDCHILD, claim_for(name))

    return child


def fact_checker(rendezvous: Rendezvous, asked: list[str]) -> Agent[Deps, str]:
    """The grandchild: it waits until every grandchild is in flight, then gives its verdict."""

    async def checker_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        asked.append(GRANDCHILD)
        claim = user_prompt(messages)
        await rendezvous.meet(claim)
        return ModelResponse(parts=[TextPart(verdict_for(claim))])

    return Agent(FunctionModel(checker_model), deps_type=Deps, name=GRANDCHILD)


def tool_outputs(messages: list[ModelMessage]) -> dict[str, str]:
    """The parent tool's returned mapping of child name to child output."""
    for message in messages:
        for part in message.parts if isinstance(message, ModelRequest) else ():
            if isinstance(part, ToolReturnPart) and isinstance(part.content, dict):
                return {str(k): str(v) for k, v in part.content.items()}
    raise AssertionError("the parent never received its tool's result")


def root(session_id: str) -> SimpleAgent:
    """The parent as the cassette sees it; the session id is volatile and never matched."""
    return SimpleAgent(session_id=session_id, options={"agent": "parent"})


async def record(file: Path) -> dict[str, str]:
    """Record with alpha as the slower child and both grandchildren in flight together."""
    asked: list[str] = []
    rendezvous = Rendezvous(len(CHILDREN))
    registry = ProviderRegistry()
    deps = Deps(SubagentDelegate(registry, root("record-root")), Turnstile(SLOW_ALPHA))
    agents = [*(child_agent(n, asked) for n in CHILDREN), fact_checker(rendezvous, asked)]
    registry.register(pydantic_ai_provider(agents, deps=deps))
    handle = install_cassette(
        registry, RecordConfig(file=str(file), upstream_provider="pydantic-ai")
    )
    try:
        run = await parent_agent().run("Review the drafts.", deps=deps)
    finally:
        await handle.dispose()
    assert deps.turnstile.passed == list(SLOW_ALPHA)
    assert sorted(rendezvous.arrived) == sorted(claim_for(name) for name in CHILDREN)
    assert sorted(asked) == sorted([*CHILDREN, *CHILDREN, GRANDCHILD, GRANDCHILD])
    return tool_outputs(run.all_messages())


async def test_nested_delegate_records_the_true_tree(tmp_path: Path) -> None:
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
    handle = install_cassette(registry, ReplayConfig(file=str(file)))
    deps = Deps(SubagentDelegate(registry, root("replay-root")), Turnstile(SLOW_BETA))
    with override_allow_model_requests(False):
        run = await parent_agent().run("Review the drafts.", deps=deps)
    tally = handle.replay_tally()
    await handle.dispose()  # assert_consumed is on: the nested calls count as covered

    assert deps.turnstile.passed == list(SLOW_BETA)
    assert tool_outputs(run.all_messages()) == expected
    assert tally is not None
    grandchildren = {i.call_key for i in load_cassette(file).interactions if i.parent_key != "root"}
    assert {call.call_key for call in tally.covered} == grandchildren
    assert tally.consumed == len(CHILDREN)
    assert tally.remaining == 0
