"""cassette-provider: the subagent contract for Python harnesses, recording and offline replay.

Names load on first use (cassette_format.lazy_exports), so importing a submodule (the pytest
plugin, say) does not pull in the recorder, replay and model stacks; the `TYPE_CHECKING`
imports give type checkers the same surface (tests/provider/test_public_surface.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from cassette_format.errors import CassetteError as CassetteError
    from cassette_format.errors import CassetteFormatError as CassetteFormatError
    from cassette_topology.exceptions import CassetteAmbiguityError as CassetteAmbiguityError
    from cassette_topology.exceptions import CassetteMismatchError as CassetteMismatchError

    from cassette_provider.contract.abort import AbortController as AbortController
    from cassette_provider.contract.abort import AbortError as AbortError
    from cassette_provider.contract.abort import AbortSignal as AbortSignal
    from cassette_provider.contract.agent import SUBAGENT_ORIGIN as SUBAGENT_ORIGIN
    from cassette_provider.contract.agent import ParentAgent as ParentAgent
    from cassette_provider.contract.agent import SimpleAgent as SimpleAgent
    from cassette_provider.contract.errors import CassetteRecordedError as CassetteRecordedError
    from cassette_provider.contract.function_provider import FunctionProvider as FunctionProvider
    from cassette_provider.contract.function_provider import FunctionRun as FunctionRun
    from cassette_provider.contract.function_provider import aborted_result as aborted_result
    from cassette_provider.contract.protocol import ALL_CAPABILITIES as ALL_CAPABILITIES
    from cassette_provider.contract.protocol import Capabilities as Capabilities
    from cassette_provider.contract.protocol import StartRequest as StartRequest
    from cassette_provider.contract.protocol import SubagentProvider as SubagentProvider
    from cassette_provider.contract.protocol import SubagentResult as SubagentResult
    from cassette_provider.contract.protocol import SubagentRun as SubagentRun
    from cassette_provider.contract.registry import ProviderRegistry as ProviderRegistry
    from cassette_provider.contract.registry import ProviderRegistryError as ProviderRegistryError
    from cassette_provider.install import CassetteHandle as CassetteHandle
    from cassette_provider.install import RecordConfig as RecordConfig
    from cassette_provider.install import ReplayConfig as ReplayConfig
    from cassette_provider.install import install_cassette as install_cassette
    from cassette_provider.models import ModelReplayError as ModelReplayError
    from cassette_provider.models import SessionLogFormatError as SessionLogFormatError
    from cassette_provider.models import SessionRecorder as SessionRecorder
    from cassette_provider.models import SessionReplayer as SessionReplayer
    from cassette_provider.models import SessionReplayMismatchError as SessionReplayMismatchError
    from cassette_provider.models import harvest_session_logs as harvest_session_logs
    from cassette_provider.models import load_session_log as load_session_log
    from cassette_provider.models import session_scope as session_scope
    from cassette_provider.models import write_session_logs as write_session_logs
    from cassette_provider.refresh import RefreshHandle as RefreshHandle
    from cassette_provider.refresh import install_refresh as install_refresh

_attribute, _names = lazy_exports(
    __name__,
    {
        "cassette_format.errors": ("CassetteError", "CassetteFormatError"),
        "cassette_topology.exceptions": ("CassetteAmbiguityError", "CassetteMismatchError"),
        "cassette_provider.contract.abort": ("AbortController", "AbortError", "AbortSignal"),
        "cassette_provider.contract.agent": ("SUBAGENT_ORIGIN", "ParentAgent", "SimpleAgent"),
        "cassette_provider.contract.errors": ("CassetteRecordedError",),
        "cassette_provider.contract.function_provider": (
            "FunctionProvider",
            "FunctionRun",
            "aborted_result",
        ),
        "cassette_provider.contract.protocol": (
            "ALL_CAPABILITIES",
            "Capabilities",
            "StartRequest",
            "SubagentProvider",
            "SubagentResult",
            "SubagentRun",
        ),
        "cassette_provider.contract.registry": ("ProviderRegistry", "ProviderRegistryError"),
        "cassette_provider.refresh": ("RefreshHandle", "install_refresh"),
        "cassette_provider.install": (
            "CassetteHandle",
            "RecordConfig",
            "ReplayConfig",
            "install_cassette",
        ),
        "cassette_provider.models": (
            "ModelReplayError",
            "SessionLogFormatError",
            "SessionRecorder",
            "SessionReplayer",
            "SessionReplayMismatchError",
            "harvest_session_logs",
            "load_session_log",
            "session_scope",
            "write_session_logs",
        ),
    },
)

if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt import is an error there
    __getattr__, __dir__ = _attribute, _names
