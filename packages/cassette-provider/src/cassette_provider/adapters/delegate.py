"""Delegation from a parent agent's tool to child agents through a `ProviderRegistry`."""

from __future__ import annotations

from cassette_provider.adapters.blocks import CHILD_AGENT_OPTION, result_text, text_prompt
from cassette_provider.adapters.nesting import parent_for_call
from cassette_provider.contract.agent import ParentAgent
from cassette_provider.contract.protocol import StartRequest, SubagentResult
from cassette_provider.contract.registry import ProviderRegistry


class SubagentIncompleteError(RuntimeError):
    """A child finished without completing its task; only its stop reason is shown."""

    def __init__(self, agent: str, stop_reason: object) -> None:
        super().__init__(f"subagent {agent!r} stopped with reason {str(stop_reason)!r}")
        self.agent = agent
        self.stop_reason = stop_reason


class SubagentDelegate:
    """Starts child agents by name for one parent, through the registry's cassette provider.

    Every call is one one-shot subagent start: the request names the child in
    `agent_options["agent"]` and uses the child's name as its label, so concurrent children
    (`asyncio.gather`) are told apart by what they were asked, never by completion order.
    Called while an adapter provider runs a child (a nested delegate or tool), the call's parent
    is that running child rather than `parent`, so it is recorded beneath the child's call.
    """

    def __init__(
        self, registry: ProviderRegistry, parent: ParentAgent, *, provider: str = "cassette"
    ) -> None:
        self.registry = registry
        self.parent = parent
        self.provider = provider

    def current_parent(self) -> ParentAgent:
        """The parent a call made now gets: the running child, else the configured parent."""
        return parent_for_call(self.parent)

    async def run(self, agent: str, prompt: str, *, label: str | None = None) -> SubagentResult:
        """Start the child, await its terminal result and dispose of the run."""
        request = StartRequest(
            prompt=text_prompt(prompt),
            parent=self.current_parent(),
            label=label if label is not None else agent,
            agent_options={CHILD_AGENT_OPTION: agent},
        )
        run = await self.registry.start(self.provider, request)
        try:
            result = await run.result
        finally:
            await run.dispose()
        return result

    async def ask(self, agent: str, prompt: str, *, label: str | None = None) -> str:
        """The child's text output; a non-completed stop reason raises."""
        result = await self.run(agent, prompt, label=label)
        if result["stopReason"] != "completed":
            raise SubagentIncompleteError(agent, result["stopReason"])
        return result_text(result)
