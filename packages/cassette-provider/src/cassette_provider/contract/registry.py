"""Named providers side by side, with start-time capability checks."""

from __future__ import annotations

import threading
from collections.abc import Callable

from cassette_provider.contract.errors import (
    DUPLICATE_PROVIDER,
    NO_PROVIDER,
    UNSUPPORTED_CAPABILITY,
    ProviderProblem,
    ProviderRegistryError,
    provider_error,
)
from cassette_provider.contract.loops import run_sync
from cassette_provider.contract.protocol import (
    StartRequest,
    SubagentProvider,
    SubagentResult,
    SubagentRun,
)

__all__ = [
    "DUPLICATE_PROVIDER",
    "NO_PROVIDER",
    "UNSUPPORTED_CAPABILITY",
    "ProviderRegistry",
    "ProviderRegistryError",
]


def _unsupported(provider: SubagentProvider, request: StartRequest) -> str | None:
    """The first request field the provider's capabilities do not allow, if any."""
    caps = provider.capabilities
    checks = (
        ("outputSchema", request.output_schema, caps.output_schema),
        ("maxDepth", request.max_depth, caps.depth_limit),
        ("toolFilter", request.tool_filter, caps.tool_filter),
        ("persona", request.persona, caps.persona),
    )
    for field, value, supported in checks:
        if value is not None and not supported:
            return field
    return None


class ProviderRegistry:
    """Holds named providers; the cassette provider registers beside the real one.

    Safe to use from several threads (issue 27): registering checks and adds under one lock.
    """

    def __init__(self) -> None:
        self._providers: dict[str, SubagentProvider] = {}
        self._lock = threading.Lock()

    def register(self, provider: SubagentProvider) -> Callable[[], None]:
        """Add a provider under its name; returns a callable that removes exactly it."""
        name = provider.name
        with self._lock:
            if name in self._providers:
                raise provider_error(
                    ProviderProblem(
                        f'a subagent provider named "{name}" is already registered',
                        DUPLICATE_PROVIDER,
                    )
                )
            self._providers[name] = provider

        def unregister() -> None:
            with self._lock:
                if self._providers.get(name) is provider:
                    del self._providers[name]

        return unregister

    def get(self, name: str) -> SubagentProvider | None:
        """The provider registered under `name`, or None."""
        return self._providers.get(name)

    def names(self) -> tuple[str, ...]:
        """Registered names in registration order."""
        return tuple(self._providers)

    async def start(self, name: str, request: StartRequest) -> SubagentRun:
        """Check capabilities, then delegate to the named provider's `start`."""
        provider = self._providers.get(name)
        if provider is None:
            raise provider_error(
                ProviderProblem(f'no subagent provider registered for "{name}"', NO_PROVIDER)
            )
        field = _unsupported(provider, request)
        if field is not None:
            raise provider_error(
                ProviderProblem(
                    f'subagent provider "{name}" does not support {field}', UNSUPPORTED_CAPABILITY
                )
            )
        return await provider.start(request)

    async def run(self, name: str, request: StartRequest) -> SubagentResult:
        """Start a child, await its terminal result and dispose of the run (even on failure)."""
        run = await self.start(name, request)
        try:
            return await run.result
        finally:
            await run.dispose()

    def run_sync(self, name: str, request: StartRequest) -> SubagentResult:
        """`run` for synchronous code: the child's whole life on a fresh loop of this thread.

        Any thread may call it, several at once (a `ThreadPoolExecutor` harness, LangGraph's
        sync `invoke`); where an event loop already runs in this thread it refuses, as it would
        block that loop (INVALID_CONFIG): `await registry.run(...)` there instead.
        """
        return run_sync(
            lambda: self.run(name, request),
            "ProviderRegistry.run_sync()",
            "await registry.run(...)",
        )
