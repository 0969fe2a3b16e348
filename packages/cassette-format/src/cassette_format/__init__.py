"""cassette-format: dsh-subagent-cassette v1 records, strict verification, summaries, writer.

Core functions return `returns` Results carrying `CassetteFormatError` values
(`parse_cassette`, `read_cassette`, `verify_stream`, `create_header`, `seal_interaction`);
the file edges `load_cassette`, `verify_file` and `CassetteWriter` raise it instead.
Names load on first use, so `cassette verify` imports only the streaming verifier.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cassette_format._open import (
        open_regular,
    )
    from cassette_format.cassette import (
        CassetteFile,
    )
    from cassette_format.chain import (
        header_line,
        interaction_line,
        seal_interaction,
    )
    from cassette_format.errors import (
        CASSETTE_FORMAT_CODE,
        CassetteError,
        CassetteFormatError,
    )
    from cassette_format.header import (
        create_header,
        iso_timestamp,
        validate_header,
    )
    from cassette_format.lock import (
        writer_lock_path,
    )
    from cassette_format.parse import (
        load_cassette,
        parse_cassette,
        read_cassette,
    )
    from cassette_format.records import (
        CASSETTE_FORMAT,
        CASSETTE_VERSION,
        TARGET_DSH_SUBAGENT,
        Capabilities,
        CassetteHeader,
        CassetteInteraction,
        FullRequest,
        FullRequestView,
        InteractionBody,
        MetadataRequestView,
        Outcome,
        ProviderFacts,
        RecordedError,
        RequestMetadata,
        RequestStorage,
        RequestView,
        ResultErrorOutcome,
        ResultOutcome,
        StartErrorOutcome,
        StopReasonCategory,
        Timing,
        ToolFilter,
    )
    from cassette_format.summary import (
        ambiguous_groups,
        classify_stop_reason,
        summarize,
    )
    from cassette_format.verify import (
        verify_file,
        verify_stream,
    )
    from cassette_format.writer import (
        CassetteWriter,
        WriteMode,
    )

_MODULES = {
    "CassetteFile": "cassette_format.cassette",
    "CASSETTE_FORMAT_CODE": "cassette_format.errors",
    "CassetteError": "cassette_format.errors",
    "CassetteFormatError": "cassette_format.errors",
    "load_cassette": "cassette_format.parse",
    "parse_cassette": "cassette_format.parse",
    "read_cassette": "cassette_format.parse",
    "CASSETTE_FORMAT": "cassette_format.records",
    "CASSETTE_VERSION": "cassette_format.records",
    "TARGET_DSH_SUBAGENT": "cassette_format.records",
    "Capabilities": "cassette_format.records",
    "CassetteHeader": "cassette_format.records",
    "CassetteInteraction": "cassette_format.records",
    "FullRequest": "cassette_format.records",
    "FullRequestView": "cassette_format.records",
    "InteractionBody": "cassette_format.records",
    "MetadataRequestView": "cassette_format.records",
    "Outcome": "cassette_format.records",
    "ProviderFacts": "cassette_format.records",
    "RecordedError": "cassette_format.records",
    "RequestMetadata": "cassette_format.records",
    "RequestStorage": "cassette_format.records",
    "RequestView": "cassette_format.records",
    "ResultErrorOutcome": "cassette_format.records",
    "ResultOutcome": "cassette_format.records",
    "StartErrorOutcome": "cassette_format.records",
    "StopReasonCategory": "cassette_format.records",
    "Timing": "cassette_format.records",
    "ToolFilter": "cassette_format.records",
    "ambiguous_groups": "cassette_format.summary",
    "classify_stop_reason": "cassette_format.summary",
    "summarize": "cassette_format.summary",
    "verify_file": "cassette_format.verify",
    "verify_stream": "cassette_format.verify",
    "header_line": "cassette_format.chain",
    "interaction_line": "cassette_format.chain",
    "seal_interaction": "cassette_format.chain",
    "create_header": "cassette_format.header",
    "iso_timestamp": "cassette_format.header",
    "validate_header": "cassette_format.header",
    "writer_lock_path": "cassette_format.lock",
    "open_regular": "cassette_format._open",
    "CassetteWriter": "cassette_format.writer",
    "WriteMode": "cassette_format.writer",
}


def __getattr__(name: str) -> object:
    module = _MODULES.get(name)
    if module is None:
        raise AttributeError(f"module 'cassette_format' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    "CASSETTE_FORMAT",
    "CASSETTE_FORMAT_CODE",
    "CASSETTE_VERSION",
    "TARGET_DSH_SUBAGENT",
    "Capabilities",
    "CassetteError",
    "CassetteFile",
    "CassetteFormatError",
    "CassetteHeader",
    "CassetteInteraction",
    "CassetteWriter",
    "FullRequest",
    "FullRequestView",
    "InteractionBody",
    "MetadataRequestView",
    "Outcome",
    "ProviderFacts",
    "RecordedError",
    "RequestMetadata",
    "RequestStorage",
    "RequestView",
    "ResultErrorOutcome",
    "ResultOutcome",
    "StartErrorOutcome",
    "StopReasonCategory",
    "Timing",
    "ToolFilter",
    "WriteMode",
    "ambiguous_groups",
    "classify_stop_reason",
    "create_header",
    "header_line",
    "interaction_line",
    "iso_timestamp",
    "load_cassette",
    "open_regular",
    "parse_cassette",
    "read_cassette",
    "seal_interaction",
    "summarize",
    "validate_header",
    "verify_file",
    "verify_stream",
    "writer_lock_path",
]
