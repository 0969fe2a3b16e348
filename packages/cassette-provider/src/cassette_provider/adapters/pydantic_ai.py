"""pydantic-ai adapter: child `pydantic_ai.Agent`s as subagents, delegated to from parent tools.

`pydantic_ai_provider` is the upstream that records real children; `SubagentDelegate` is what a
parent agent's tool calls (usually through its deps) to start children, concurrently if it likes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from cassette_provider.adapters.blocks import (
    child_agent_name,
    prompt_text,
    text_result,
)
from cassette_provider.adapters.delegate import SubagentDelegate, SubagentIncompleteError
from cassette_provider.adapters.nesting import child_running
from cassette_provider.contract.agent import SimpleAgent
from cassette_provider.contract.function_provider import FunctionProvider
from cassette_provider.contract.protocol import StartRequest
from cassette_provider.extras import require_extra

__all__ = ["SubagentDelegate", "SubagentIncompleteError", "pydantic_ai_provider"]


def _by_name(agents: Mapping[str, Any] | Iterable[Any]) -> dict[str, Any]:
    """Child agents keyed by the name requests use."""
    if isinstance(agents, Mapping):
        return dict(agents)
    named: dict[str, Any] = {}
    for agent in cast(Iterable[Any], agents):
        if not isinstance(agent.name, str) or not agent.name:
            raise ValueError("a child pydantic-ai Agent needs a name, or pass a mapping")
        named[agent.name] = agent
    return named


def pydantic_ai_provider(
    agents: Mapping[str, Any] | Iterable[Any], *, name: str = "pydantic-ai", deps: Any = None
) -> FunctionProvider:
    """A `FunctionProvider` that runs the child `Agent` a request names, as the subagent.

    The child receives the prompt's text; its output becomes one text block (non-string outputs
    are also kept as `structured` plain JSON). An unknown child name fails the start.
    """
    pydantic_core = require_extra("pydantic_core", __name__, "pydantic-ai")

    children = _by_name(agents)

    def child_for(request: StartRequest) -> Any:
        agent_name = child_agent_name(request.agent_options)
        if agent_name not in children:
            raise LookupError(f"no pydantic-ai child agent named {agent_name!r}")
        return children[agent_name]

    async def start(request: StartRequest) -> None:
        child_for(request)

    async def run(request: StartRequest, child: SimpleAgent) -> dict[str, object]:
        with child_running(child):
            outcome = await child_for(request).run(prompt_text(request.prompt), deps=deps)
        output = outcome.output
        structured = None if isinstance(output, str) else pydantic_core.to_jsonable_python(output)
        return text_result(output, structured)

    return FunctionProvider(name, run, start=start)
