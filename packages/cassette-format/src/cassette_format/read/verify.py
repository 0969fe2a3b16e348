"""Streaming verification: the loader's verdict and summary without holding the file.

Lines are consumed one by one, in order, in this process; only the chain state
(`_chain.ChainState`) is kept. On a seekable stream it remembers call keys and groups as
line offsets (`_line_keys.CompactKeys`, about 16 bytes per interaction), reading a line
back when a key might repeat and, for groups that do repeat, to compare their outcomes
(FMT-19). A stream that cannot seek keeps the keys themselves (`ExactKeys`).
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING

from cassette_format.errors import format_error
from cassette_format.problem import FormatProblem
from cassette_format.read.chain import ChainState
from cassette_format.read.line_keys import CompactKeys, ExactKeys
from cassette_format.read.lines import numbered_lines
from cassette_format.read.open import open_regular
from cassette_format.read.reread import LineReader
from cassette_format.read.run import run_lines
from cassette_format.read.summary import summary_document
from cassette_format.read.tail_seal import run_sealed

if TYPE_CHECKING:
    from cassette_canonical import JsonValue
    from returns.result import Result

__all__ = ["verify_file", "verify_stream"]

Summary = dict[str, "JsonValue"]


def _verify(stream: IO[bytes], cassette: str | None = None) -> Summary | FormatProblem:
    """The summary of the stream from its position, or its first problem in line order.

    With the `cassette` path it came from, its tail seal is checked too (`tail_seal`).

    The value is a plain union rather than a Result so `cassette verify` never imports
    `returns` (its import costs more than verifying a 1,000-line file).
    """
    reader = LineReader.of(stream)
    if reader is None:
        keys: CompactKeys | ExactKeys = ExactKeys(count_ambiguity=True)
        lines = numbered_lines(stream)
        size = 0
    else:
        keys = CompactKeys(reader)
        lines = numbered_lines(stream, reader.start)
        size = reader.size
    state = ChainState(keep_records=False, keys=keys, size=size)
    problem = run_lines(state, lines) if cassette is None else run_sealed(state, lines, cassette)
    if problem is not None:
        return problem
    header, ambiguous = state.header_record, state.ambiguous_groups
    if header is None or ambiguous is None:  # finish() passed, so neither is None
        return FormatProblem("cassette is empty")
    return summary_document(header, state.tally, ambiguous)


def verify_stream(stream: IO[bytes]) -> Result[Summary, FormatProblem]:
    """Verify a binary stream line by line, in order; returns the summary (no `file`)."""
    from returns.result import Failure, Success  # lazy: `cassette verify` never needs it

    match _verify(stream):
        case FormatProblem() as problem:
            return Failure(problem)
        case summary:
            return Success(summary)


def _read(absolute: str) -> Summary | FormatProblem:
    """The summary of the file at `absolute`, or why not; I/O failures are FMT-18's message."""
    try:
        handle = open_regular(absolute)
        try:
            return _verify(handle, absolute)
        finally:
            handle.close()
    except OSError as error:
        return FormatProblem(f'cannot read cassette "{absolute}"', cause=error)


def verify_file(path: str | os.PathLike[str]) -> Summary:
    """The raising file edge `cassette verify` calls: summary or CassetteFormatError.

    Always in this process (no helper processes; `cassette verify --jobs` spreads files).
    """
    verdict = _read(os.path.abspath(os.fspath(path)))
    if isinstance(verdict, FormatProblem):
        raise format_error(verdict)
    return verdict
