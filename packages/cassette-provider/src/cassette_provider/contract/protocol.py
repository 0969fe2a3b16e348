"""The one-shot subagent contract: start request, run, result and the provider protocol."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import NotRequired, Protocol, TypedDict, runtime_checkable

from cassette_format.records import Capabilities

from cassette_provider.contract.abort import AbortSignal
from cassette_provider.contract.agent import ParentAgent
from cassette_provider.contract.errors import INVALID_CONFIG, ProviderProblem, provider_error

__all__ = [
    "ALL_CAPABILITIES",
    "Capabilities",
    "ProviderIdentity",
    "StartRequest",
    "SubagentProvider",
    "SubagentResult",
    "SubagentRun",
]

#: Capabilities of a provider that supports every optional request field.
ALL_CAPABILITIES = Capabilities(
    output_schema=True, depth_limit=True, tool_filter=True, persona=True
)


class SubagentResult(TypedDict):
    """A terminal result in its on-disk shape: content blocks, stop reason, optional structured."""

    output: Sequence[Mapping[str, object]]
    stopReason: str
    structured: NotRequired[object]


#: Classes already seen to satisfy ParentAgent: a runtime protocol check costs ~100 µs.
_PARENT_CLASSES: set[type] = set()


def _is_parent_agent(value: object) -> bool:
    """True when `value` has ParentAgent's members, checked once per class."""
    kind = type(value)
    if kind in _PARENT_CLASSES:
        return True
    if isinstance(value, ParentAgent):
        _PARENT_CLASSES.add(kind)
        return True
    return False


@dataclass(frozen=True, slots=True)
class StartRequest:
    """One start request: prompt blocks, the parent, an abort signal and optional fields."""

    prompt: object
    parent: ParentAgent
    signal: AbortSignal | None = None
    label: str | None = None
    agent_options: object = None
    output_schema: object = None
    max_depth: object = None
    tool_filter: object = None
    persona: object = None

    def __post_init__(self) -> None:
        """Refuse a parent or signal the provider cannot use (INVALID_CONFIG, issue 26).

        The other fields are checked per call: normalization (NORM-2, NORM-3) and, for full
        storage, the format's request rules, so one odd request never reaches the writer.
        """
        if not _is_parent_agent(self.parent):
            raise provider_error(
                ProviderProblem(
                    "StartRequest.parent must be a ParentAgent "
                    "(a SimpleAgent or an adapter's agent)",
                    INVALID_CONFIG,
                )
            )
        if self.signal is not None and not isinstance(self.signal, AbortSignal):
            raise provider_error(
                ProviderProblem(
                    "StartRequest.signal must be an AbortSignal or None", INVALID_CONFIG
                )
            )


@runtime_checkable
class SubagentRun(Protocol):
    """A published run: the caller owns it and must `dispose()` it (idempotent)."""

    @property
    def id(self) -> str:
        """The run id."""
        ...

    @property
    def local_agent(self) -> ParentAgent | None:
        """The child the harness can see (and use as a parent), or None."""
        ...

    @property
    def result(self) -> Awaitable[SubagentResult]:
        """The terminal result; it rejects only for infrastructure faults."""
        ...

    async def dispose(self) -> None:
        """Release the run; safe to call more than once."""
        ...


@runtime_checkable
class SubagentProvider(Protocol):
    """A named provider: capability facts and `start`, which publishes a run or raises."""

    @property
    def name(self) -> str:
        """The registry name."""
        ...

    @property
    def capabilities(self) -> Capabilities:
        """Which optional request fields this provider supports."""
        ...

    @property
    def inherits_parent_context(self) -> bool:
        """Whether children see the parent's completed-turn messages."""
        ...

    async def start(self, request: StartRequest) -> SubagentRun:
        """Start one child; before this returns the provider owns the startup resources."""
        ...


class ProviderIdentity:
    """The three facts every provider exposes, read from attributes its `__init__` sets."""

    _name: str
    _capabilities: Capabilities
    _inherits: bool

    @property
    def name(self) -> str:
        """The registry name."""
        return self._name

    @property
    def capabilities(self) -> Capabilities:
        """Which optional request fields this provider supports."""
        return self._capabilities

    @property
    def inherits_parent_context(self) -> bool:
        """Whether children see the parent's completed-turn messages."""
        return self._inherits
