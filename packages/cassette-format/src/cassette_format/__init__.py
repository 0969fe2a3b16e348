"""cassette-format: dsh-subagent-cassette v1 records, strict verification, summaries, writer.

Core functions return `returns` Results carrying frozen `FormatProblem` values
(`parse_cassette`, `read_cassette`, `verify_stream`, `create_header`, `seal_interaction`);
the file edges `load_cassette`, `verify_file` and `CassetteWriter` raise the problem as a
`CassetteFormatError` (`cassette_format.errors`, the package's one error edge).
Names load on first use, so `cassette verify` imports only the streaming verifier; the
`TYPE_CHECKING` imports give type checkers the same surface (tests/format/test_public_surface.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from cassette_format.errors import CASSETTE_FORMAT_CODE as CASSETTE_FORMAT_CODE
    from cassette_format.errors import CassetteError as CassetteError
    from cassette_format.errors import CassetteFormatError as CassetteFormatError
    from cassette_format.errors import InteractionRefused as InteractionRefused
    from cassette_format.errors import format_error as format_error
    from cassette_format.problem import FormatProblem as FormatProblem
    from cassette_format.read.open import open_regular as open_regular
    from cassette_format.read.parse import load_cassette as load_cassette
    from cassette_format.read.parse import parse_cassette as parse_cassette
    from cassette_format.read.parse import read_cassette as read_cassette
    from cassette_format.read.summary import ambiguous_groups as ambiguous_groups
    from cassette_format.read.summary import classify_stop_reason as classify_stop_reason
    from cassette_format.read.summary import summarize as summarize
    from cassette_format.read.verify import verify_file as verify_file
    from cassette_format.read.verify import verify_stream as verify_stream
    from cassette_format.records.cassette_file import CassetteFile as CassetteFile
    from cassette_format.records.model import *  # noqa: F403  (every name of records.__all__)
    from cassette_format.write.header import create_header as create_header
    from cassette_format.write.header import iso_timestamp as iso_timestamp
    from cassette_format.write.header import validate_header as validate_header
    from cassette_format.write.lock import writer_lock_path as writer_lock_path
    from cassette_format.write.seal import header_line as header_line
    from cassette_format.write.seal import interaction_line as interaction_line
    from cassette_format.write.seal import seal_interaction as seal_interaction
    from cassette_format.write.writer import CassetteWriter as CassetteWriter
    from cassette_format.write.writer import WriteMode as WriteMode

_attribute, _names = lazy_exports(
    __name__,
    {
        "cassette_format.read.open": ("open_regular",),
        "cassette_format.records.cassette_file": ("CassetteFile",),
        "cassette_format.write.seal": ("header_line", "interaction_line", "seal_interaction"),
        "cassette_format.errors": (
            "CASSETTE_FORMAT_CODE",
            "CassetteError",
            "CassetteFormatError",
            "InteractionRefused",
            "format_error",
        ),
        "cassette_format.problem": ("FormatProblem",),
        "cassette_format.write.header": ("create_header", "iso_timestamp", "validate_header"),
        "cassette_format.write.lock": ("writer_lock_path",),
        "cassette_format.read.parse": ("load_cassette", "parse_cassette", "read_cassette"),
        "cassette_format.read.summary": ("ambiguous_groups", "classify_stop_reason", "summarize"),
        "cassette_format.read.verify": ("verify_file", "verify_stream"),
        "cassette_format.write.writer": ("CassetteWriter", "WriteMode"),
    },
    whole=("cassette_format.records",),
)

if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt import is an error there
    __getattr__, __dir__ = _attribute, _names
