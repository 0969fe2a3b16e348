"""cassette-format: dsh-subagent-cassette v1 records, strict verification, summaries, writer.

Core functions return `returns` Results carrying `CassetteFormatError` values
(`parse_cassette`, `read_cassette`, `verify_stream`); the file edges `load_cassette` and
`verify_file` raise `CassetteFormatError` instead.
"""

import importlib
from typing import TYPE_CHECKING

from cassette_format.cassette import CassetteFile
from cassette_format.errors import CASSETTE_FORMAT_CODE, CassetteError, CassetteFormatError
from cassette_format.parse import load_cassette, parse_cassette, read_cassette
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
from cassette_format.summary import ambiguous_groups, classify_stop_reason, summarize
from cassette_format.verify import verify_file, verify_stream

if TYPE_CHECKING:
    from cassette_format.chain import header_line, interaction_line, seal_interaction
    from cassette_format.header import create_header, iso_timestamp, validate_header
    from cassette_format.lock import writer_lock_path
    from cassette_format.writer import CassetteWriter, WriteMode

# The writer side (asyncio, threads) loads on first use, so `cassette verify` stays lean.
_LAZY = {
    "CassetteWriter": "cassette_format.writer",
    "WriteMode": "cassette_format.writer",
    "create_header": "cassette_format.header",
    "iso_timestamp": "cassette_format.header",
    "validate_header": "cassette_format.header",
    "header_line": "cassette_format.chain",
    "interaction_line": "cassette_format.chain",
    "seal_interaction": "cassette_format.chain",
    "writer_lock_path": "cassette_format.lock",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'cassette_format' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


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
    "parse_cassette",
    "read_cassette",
    "seal_interaction",
    "summarize",
    "validate_header",
    "verify_file",
    "verify_stream",
    "writer_lock_path",
]
