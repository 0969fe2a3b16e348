"""cassette-provider: the subagent contract for Python harnesses, recording and offline replay.

Names load on first use, so importing a submodule (the pytest plugin, say) does not pull in
the recorder, replay and model stacks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cassette_format.errors import (
        CassetteError,
        CassetteFormatError,
    )
    from cassette_topology.exceptions import (
        CassetteAmbiguityError,
        CassetteMismatchError,
    )

    from cassette_provider.contract.abort import (
        AbortController,
        AbortError,
        AbortSignal,
    )
    from cassette_provider.contract.agent import (
        SUBAGENT_ORIGIN,
        ParentAgent,
        SimpleAgent,
    )
    from cassette_provider.contract.errors import (
        CassetteRecordedError,
    )
    from cassette_provider.contract.function_provider import (
        FunctionProvider,
        FunctionRun,
        aborted_result,
    )
    from cassette_provider.contract.protocol import (
        ALL_CAPABILITIES,
        Capabilities,
        StartRequest,
        SubagentProvider,
        SubagentResult,
        SubagentRun,
    )
    from cassette_provider.contract.registry import (
        ProviderRegistry,
        ProviderRegistryError,
    )
    from cassette_provider.install import (
        CassetteHandle,
        RecordConfig,
        ReplayConfig,
        install_cassette,
    )
    from cassette_provider.models import (
        ModelReplayError,
        SessionLogFormatError,
        SessionRecorder,
        SessionReplayer,
        SessionReplayMismatchError,
        harvest_session_logs,
        load_session_log,
        session_scope,
        write_session_logs,
    )

_MODULES = {
    "CassetteError": "cassette_format.errors",
    "CassetteFormatError": "cassette_format.errors",
    "CassetteAmbiguityError": "cassette_topology.exceptions",
    "CassetteMismatchError": "cassette_topology.exceptions",
    "AbortController": "cassette_provider.contract.abort",
    "AbortError": "cassette_provider.contract.abort",
    "AbortSignal": "cassette_provider.contract.abort",
    "SUBAGENT_ORIGIN": "cassette_provider.contract.agent",
    "ParentAgent": "cassette_provider.contract.agent",
    "SimpleAgent": "cassette_provider.contract.agent",
    "ALL_CAPABILITIES": "cassette_provider.contract.protocol",
    "Capabilities": "cassette_provider.contract.protocol",
    "StartRequest": "cassette_provider.contract.protocol",
    "SubagentProvider": "cassette_provider.contract.protocol",
    "SubagentResult": "cassette_provider.contract.protocol",
    "SubagentRun": "cassette_provider.contract.protocol",
    "CassetteRecordedError": "cassette_provider.contract.errors",
    "FunctionProvider": "cassette_provider.contract.function_provider",
    "FunctionRun": "cassette_provider.contract.function_provider",
    "aborted_result": "cassette_provider.contract.function_provider",
    "CassetteHandle": "cassette_provider.install",
    "RecordConfig": "cassette_provider.install",
    "ReplayConfig": "cassette_provider.install",
    "install_cassette": "cassette_provider.install",
    "ModelReplayError": "cassette_provider.models",
    "SessionLogFormatError": "cassette_provider.models",
    "SessionRecorder": "cassette_provider.models",
    "SessionReplayer": "cassette_provider.models",
    "SessionReplayMismatchError": "cassette_provider.models",
    "harvest_session_logs": "cassette_provider.models",
    "load_session_log": "cassette_provider.models",
    "session_scope": "cassette_provider.models",
    "write_session_logs": "cassette_provider.models",
    "ProviderRegistry": "cassette_provider.contract.registry",
    "ProviderRegistryError": "cassette_provider.contract.registry",
}


def __getattr__(name: str) -> object:
    """Import the module that defines `name` on first access and cache the value."""
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'cassette_provider' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "ALL_CAPABILITIES",
    "SUBAGENT_ORIGIN",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "Capabilities",
    "CassetteAmbiguityError",
    "CassetteError",
    "CassetteFormatError",
    "CassetteHandle",
    "CassetteMismatchError",
    "CassetteRecordedError",
    "FunctionProvider",
    "FunctionRun",
    "ModelReplayError",
    "ParentAgent",
    "ProviderRegistry",
    "ProviderRegistryError",
    "RecordConfig",
    "ReplayConfig",
    "SessionLogFormatError",
    "SessionRecorder",
    "SessionReplayMismatchError",
    "SessionReplayer",
    "SimpleAgent",
    "StartRequest",
    "SubagentProvider",
    "SubagentResult",
    "SubagentRun",
    "aborted_result",
    "harvest_session_logs",
    "install_cassette",
    "load_session_log",
    "session_scope",
    "write_session_logs",
]
