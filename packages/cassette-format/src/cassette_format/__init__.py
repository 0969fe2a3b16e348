"""cassette-format: dsh-subagent-cassette v1 records, strict verification, summaries, writer.

Core functions return `returns` Results carrying `CassetteFormatError` values
(`parse_cassette`, `read_cassette`, `verify_stream`); the file edges `load_cassette` and
`verify_file` raise `CassetteFormatError` instead.
"""

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
    "ambiguous_groups",
    "classify_stop_reason",
    "load_cassette",
    "parse_cassette",
    "read_cassette",
    "summarize",
    "verify_file",
    "verify_stream",
]
