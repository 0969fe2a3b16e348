"""openai-agents adapter: `Agent.as_tool` children started through a `ProviderRegistry`.

`cassette_tool(agent, ...)` is the drop-in equivalent of `agent.as_tool(...)` whose child run goes
through the registry's cassette provider; `openai_agents_provider` is the upstream that runs the
real child agents when recording.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

from cassette_provider.adapters.blocks import (
    child_agent_name,
    prompt_text,
    text_result,
)
from cassette_provider.adapters.delegate import SubagentDelegate, SubagentIncompleteError
from cassette_provider.adapters.nesting import child_running
from cassette_provider.contract.agent import ParentAgent, SimpleAgent
from cassette_provider.contract.function_provider import FunctionProvider
from cassette_provider.contract.protocol import StartRequest
from cassette_provider.contract.registry import ProviderRegistry
from cassette_provider.extras import require_extra

if TYPE_CHECKING:
    from agents import FunctionTool

__all__ = [
    "SubagentDelegate",
    "SubagentIncompleteError",
    "cassette_tool",
    "openai_agents_provider",
    "tool_input",
]

_INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"input": {"type": "string", "description": "The input for the agent."}},
    "required": ["input"],
    "additionalProperties": False,
}


def tool_input(arguments: str) -> str:
    """The `input` string of a child tool call's JSON arguments."""
    try:
        payload = json.loads(arguments)
    except ValueError as error:
        raise ValueError("child agent tool arguments are not valid JSON") from error
    text = payload.get("input") if isinstance(payload, dict) else None
    if not isinstance(text, str):
        raise ValueError('child agent tool arguments must be {"input": <string>}')
    return text


def _by_name(agents: Mapping[str, Any] | Iterable[Any]) -> dict[str, Any]:
    """Child agents keyed by the name requests use (`Agent.name` by default)."""
    if isinstance(agents, Mapping):
        return dict(agents)
    return {agent.name: agent for agent in cast(Iterable[Any], agents)}


def openai_agents_provider(
    agents: Mapping[str, Any] | Iterable[Any],
    *,
    name: str = "openai-agents",
    run_config: Any = None,
    max_turns: int = 10,
) -> FunctionProvider:
    """A `FunctionProvider` running the child agent a request names with `Runner.run`."""
    runner = require_extra("agents", __name__).Runner

    children = _by_name(agents)

    def child_for(request: StartRequest) -> Any:
        agent_name = child_agent_name(request.agent_options)
        if agent_name not in children:
            raise LookupError(f"no openai-agents child agent named {agent_name!r}")
        return children[agent_name]

    async def start(request: StartRequest) -> None:
        child_for(request)

    async def run(request: StartRequest, child: SimpleAgent) -> dict[str, object]:
        with child_running(child):
            outcome = await runner.run(
                child_for(request),
                prompt_text(request.prompt),
                run_config=run_config,
                max_turns=max_turns,
            )
        output = outcome.final_output
        structured = None if isinstance(output, str) else _plain(output)
        return text_result(output if isinstance(output, str) else structured, structured)

    return FunctionProvider(name, run, start=start)


def _plain(value: Any) -> Any:
    """A structured final output as plain JSON (pydantic models and dataclasses included)."""
    pydantic_core = require_extra("pydantic_core", __name__, "openai-agents")
    return pydantic_core.to_jsonable_python(value)


def cassette_tool(
    agent: Any,
    *,
    registry: ProviderRegistry,
    parent: ParentAgent,
    provider: str = "cassette",
    tool_name: str | None = None,
    tool_description: str | None = None,
) -> FunctionTool:
    """Like `agent.as_tool(tool_name, tool_description)`, but the child runs via the registry.

    The tool's input becomes the child's prompt and the child's text output the tool's result.
    Faults (a cassette mismatch, an unknown child) propagate instead of being shown to the model.
    Given to a child agent that `openai_agents_provider` runs, the tool's calls are parented on
    that running child, not on `parent`, so they are recorded beneath the child's call.
    """
    function_tool = require_extra("agents", __name__).FunctionTool

    delegate = SubagentDelegate(registry, parent, provider=provider)
    name = tool_name or agent.name

    async def on_invoke_tool(context: Any, arguments: str) -> str:
        return await delegate.ask(agent.name, tool_input(arguments), label=name)

    tool: FunctionTool = function_tool(
        name=name,
        description=tool_description or getattr(agent, "handoff_description", None) or "",
        params_json_schema=_INPUT_SCHEMA,
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=True,
    )
    return tool
