"""Parse and verify a whole cassette document (FMT-1..18); `load_cassette` is the file edge."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator

from returns.result import Failure, Result, Success

from cassette_format._chain import ChainState
from cassette_format._lines import NumberedLine, iter_text_lines, numbered_lines
from cassette_format._reject import Reject
from cassette_format.cassette import CassetteFile
from cassette_format.errors import CassetteFormatError

__all__ = ["load_cassette", "parse_cassette", "read_cassette"]


def run_lines(state: ChainState, lines: Iterator[NumberedLine]) -> CassetteFormatError | None:
    """Feed every line to `state`, then finish it; the first failure as an error value."""
    number = 0
    try:
        for number, raw, text, offset in lines:
            state.feed(number, raw, text, offset)
        state.finish()
    except Reject as reject:
        line = reject.line
        if line is None and reject.message.startswith("line "):
            line = number
        return CassetteFormatError(reject.message, line=line, path=reject.path)
    return None


def parse_cassette(
    data: bytes | str, source: str | None = None
) -> Result[CassetteFile, CassetteFormatError]:
    """Verify `data` exactly as the reference loader does and return every record.

    Bytes are decoded as strict UTF-8 line by line (D-2); a `str` is taken as decoded.
    """
    state = ChainState(keep_records=True)
    lines = iter_text_lines(data) if isinstance(data, str) else numbered_lines(io.BytesIO(data))
    problem = run_lines(state, lines)
    if problem is not None:
        return Failure(problem)
    header = state.header
    if header is None:  # finish() guarantees a header; kept for the type checker
        return Failure(CassetteFormatError("cassette is empty"))
    return Success(CassetteFile(header, tuple(state.interactions), source))


def read_cassette(path: str | os.PathLike[str]) -> Result[CassetteFile, CassetteFormatError]:
    """Read and verify a file; unreadable files give `cannot read cassette "<abs>"` (FMT-18)."""
    absolute = os.path.abspath(os.fspath(path))
    try:
        with open(absolute, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return Failure(CassetteFormatError(f'cannot read cassette "{absolute}"', cause=error))
    return parse_cassette(data, absolute)


def load_cassette(path: str | os.PathLike[str]) -> CassetteFile:
    """The raising edge of `read_cassette`: returns the file or raises CassetteFormatError."""
    result = read_cassette(path)
    if isinstance(result, Failure):
        raise result.failure()
    return result.unwrap()
