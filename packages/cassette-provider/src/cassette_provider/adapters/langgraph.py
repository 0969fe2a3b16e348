"""LangGraph adapter: child graphs run as subagents, recorded and replayed through a cassette.

A parent graph's node hands a child graph's input to `GraphDelegate` (or is `delegate.node(..)`
itself); the delegate starts one subagent through the registry's cassette provider, whose
upstream, `langgraph_provider`, runs the named compiled child graph when recording. The
request carries the child's input as one JSON text block and names the child graph in
`agent_options["agent"]`; the result keeps the child's final state as `structured`. So `Send`
siblings are told apart by their inputs, never by the order they finish, and a replayed child
gets exactly its own recorded final state without the child graph (or its model) running.

Sync `invoke` and async `ainvoke` both work: LangGraph runs sync nodes on worker threads, where
the delegate gives each child call its own event loop (`ProviderRegistry.run_sync`); async
nodes await on the graph's loop. A delegate called while a child graph runs (a nested child)
parents its call on that running child, so `cassette inspect --tree` shows the real graph.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, cast

from cassette_provider.adapters.blocks import (
    CHILD_AGENT_OPTION,
    child_agent_name,
    prompt_text,
    text_prompt,
)
from cassette_provider.adapters.delegate import SubagentIncompleteError
from cassette_provider.adapters.nesting import child_running, parent_for_call
from cassette_provider.contract.agent import ParentAgent, SimpleAgent
from cassette_provider.contract.function_provider import FunctionProvider
from cassette_provider.contract.protocol import StartRequest, SubagentResult
from cassette_provider.contract.registry import ProviderRegistry
from cassette_provider.extras import require_extra

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable

__all__ = [
    "DEFAULT_UPSTREAM",
    "GraphDelegate",
    "GraphStateError",
    "SubagentIncompleteError",
    "graph_input",
    "langgraph_provider",
]

#: The upstream name RecordConfig uses by default, so a recording needs no names configured.
DEFAULT_UPSTREAM = "spawn"

State = Mapping[str, Any]
StateMap = Callable[[State], State]


class GraphStateError(TypeError):
    """A child graph's input or final state is not plain JSON; says which mapper fixes it."""


def _json_text(state: object, what: str, mapper: str) -> str:
    """`state` as canonical JSON text (sorted keys), or GraphStateError naming the fix."""
    if not isinstance(state, Mapping):
        raise GraphStateError(f"{what} must be a mapping (a graph state), not {type(state)!r}")
    try:
        return json.dumps(state, ensure_ascii=False, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise GraphStateError(
            f"{what} must be plain JSON (dicts, lists, strings, numbers, booleans, None); "
            f"reduce it to that with {mapper}"
        ) from error


def graph_input(request: StartRequest) -> dict[str, Any]:
    """The child graph's input state a request carries (its prompt's JSON text)."""
    try:
        state = json.loads(prompt_text(request.prompt))
    except ValueError as error:
        raise GraphStateError("a LangGraph child request's prompt is not a JSON state") from error
    if not isinstance(state, dict):
        raise GraphStateError("a LangGraph child request's prompt is not a JSON object")
    return state


def langgraph_provider(
    graphs: Mapping[str, Any],
    *,
    name: str = DEFAULT_UPSTREAM,
    output: StateMap | None = None,
) -> FunctionProvider:
    """The upstream that runs the compiled child graph a request names, with `ainvoke`.

    `graphs` maps the names delegates use to compiled graphs. The child's final state (after
    `output`, when given) is the call's result; it must be plain JSON. An unknown name fails
    the start. The default `name` is RecordConfig's default upstream, `"spawn"`.
    """
    require_extra("langgraph", __name__)
    children = dict(graphs)

    def child_for(request: StartRequest) -> Any:
        graph_name = child_agent_name(request.agent_options)
        if graph_name not in children:
            raise LookupError(f"no LangGraph child graph named {graph_name!r}")
        return children[graph_name]

    async def start(request: StartRequest) -> None:
        child_for(request)

    async def run(request: StartRequest, child: SimpleAgent) -> dict[str, object]:
        with child_running(child):
            final = await child_for(request).ainvoke(graph_input(request))
        state = final if output is None else output(final)
        text = _json_text(
            state, "a LangGraph child graph's final state", "langgraph_provider(..., output=...)"
        )
        return {
            "output": text_prompt(text),  # one text block: the state's JSON
            "stopReason": "completed",
            "structured": json.loads(text),
        }

    return FunctionProvider(name, run, start=start)


class GraphDelegate:
    """Starts child graphs by name for one parent graph run, through the cassette provider.

    `ainvoke`/`invoke` return the child's final state; `node(...)` wraps that as a node a
    `StateGraph` can add (sync and async). One delegate is one recorded root: build it once
    per scenario (the default parent is one fresh `SimpleAgent`).
    """

    def __init__(
        self,
        registry: ProviderRegistry,
        parent: ParentAgent | None = None,
        *,
        provider: str = "cassette",
    ) -> None:
        self.registry = registry
        self.parent: ParentAgent = SimpleAgent() if parent is None else parent
        self.provider = provider

    def current_parent(self) -> ParentAgent:
        """The parent a call made now gets: the running child graph, else the configured one."""
        return parent_for_call(self.parent)

    def request(self, graph: str, state: State, *, label: str | None = None) -> StartRequest:
        """The start request for running child graph `graph` on input `state`."""
        text = _json_text(
            state, f"the input of LangGraph child graph {graph!r}", "node(..., to_child=...)"
        )
        return StartRequest(
            prompt=text_prompt(text),
            parent=self.current_parent(),
            label=graph if label is None else label,
            agent_options={CHILD_AGENT_OPTION: graph},
        )

    async def ainvoke(self, graph: str, state: State, *, label: str | None = None) -> State:
        """Run child graph `graph` on `state` through the cassette; its final state."""
        result = await self.registry.run(self.provider, self.request(graph, state, label=label))
        return _final_state(graph, result)

    def invoke(self, graph: str, state: State, *, label: str | None = None) -> State:
        """`ainvoke` for sync nodes: the child call gets its own event loop on this thread."""
        result = self.registry.run_sync(self.provider, self.request(graph, state, label=label))
        return _final_state(graph, result)

    def node(
        self,
        graph: str,
        *,
        label: str | Callable[[State], str] | None = None,
        to_child: StateMap | None = None,
        from_child: StateMap | None = None,
    ) -> Runnable[Any, Any]:
        """A node (sync and async) that runs child graph `graph` through the cassette.

        `to_child` maps the node's state to the child's input (default: the state as is);
        `from_child` maps the child's final state to the node's update (default: as is);
        `label` names the call (default: the graph's name), or computes it from the state.
        """
        runnables = require_extra("langchain_core.runnables", __name__, "langgraph")

        def call(state: State) -> tuple[State, str | None]:
            named = label(state) if callable(label) else label
            return (state if to_child is None else to_child(state)), named

        def finish(final: State) -> State:
            return final if from_child is None else from_child(final)

        def run_sync(state: State) -> State:
            child_input, named = call(state)
            return finish(self.invoke(graph, child_input, label=named))

        async def run_async(state: State) -> State:
            child_input, named = call(state)
            return finish(await self.ainvoke(graph, child_input, label=named))

        return cast("Runnable[Any, Any]", runnables.RunnableLambda(run_sync, afunc=run_async))


def _final_state(graph: str, result: SubagentResult) -> State:
    """The child's final state from its result; a stop other than completed raises."""
    if result["stopReason"] != "completed":
        raise SubagentIncompleteError(graph, result["stopReason"])
    state = result.get("structured")
    if not isinstance(state, dict):
        raise GraphStateError(
            f"the result of LangGraph child graph {graph!r} holds no final state "
            "(was it recorded by langgraph_provider?)"
        )
    return cast(State, state)
