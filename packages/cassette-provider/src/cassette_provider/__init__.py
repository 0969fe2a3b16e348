"""cassette-provider: the subagent contract for Python harnesses, recording and offline replay."""

from cassette_format.errors import CassetteError, CassetteFormatError
from cassette_topology.exceptions import CassetteAmbiguityError, CassetteMismatchError

from cassette_provider.abort import AbortController, AbortError, AbortSignal
from cassette_provider.agent import SUBAGENT_ORIGIN, ParentAgent, SimpleAgent
from cassette_provider.contract import (
    ALL_CAPABILITIES,
    Capabilities,
    StartRequest,
    SubagentProvider,
    SubagentResult,
    SubagentRun,
)
from cassette_provider.errors import CassetteRecordedError
from cassette_provider.function_provider import FunctionProvider, FunctionRun, aborted_result
from cassette_provider.install import CassetteHandle, RecordConfig, ReplayConfig, install_cassette
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
from cassette_provider.registry import ProviderRegistry, ProviderRegistryError

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
