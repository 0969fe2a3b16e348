"""Parse and verify a whole cassette document (FMT-1..18); `load_cassette` is the file edge."""

from __future__ import annotations

import io
import os

from returns.result import Failure, Result, Success

from cassette_format._chain import ChainState
from cassette_format._lines import iter_text_lines, numbered_lines
from cassette_format._open import open_regular
from cassette_format._run import run_lines
from cassette_format.cassette import CassetteFile
from cassette_format.errors import CassetteFormatError

__all__ = ["load_cassette", "parse_cassette", "read_cassette"]


def parse_cassette(
    data: bytes | str, source: str | None = None
) -> Result[CassetteFile, CassetteFormatError]:
    """Verify `data` exactly as the reference loader does and return every record.

    Bytes are decoded as strict UTF-8 line by line (D-2); a `str` is taken as decoded.
    """
    state = ChainState(keep_records=True)
    lines = iter_text_lines(data) if isinstance(data, str) else numbered_lines(io.BytesIO(data))
    return _finished(state, run_lines(state, lines), source)


def _finished(
    state: ChainState, problem: CassetteFormatError | None, source: str | None
) -> Result[CassetteFile, CassetteFormatError]:
    """The verified file of a finished run, or its first problem."""
    if problem is not None:
        return Failure(problem)
    header = state.header
    if header is None:  # finish() guarantees a header; kept for the type checker
        return Failure(CassetteFormatError("cassette is empty"))
    return Success(CassetteFile(header, tuple(state.interactions), source))


def read_cassette(path: str | os.PathLike[str]) -> Result[CassetteFile, CassetteFormatError]:
    """Read and verify a regular file as a stream; else `cannot read cassette "<abs>"` (FMT-18).

    FIFOs, devices, directories and sockets are refused without blocking (`_open`).
    """
    absolute = os.path.abspath(os.fspath(path))
    state = ChainState(keep_records=True)
    try:
        with open_regular(absolute) as handle:
            problem = run_lines(state, numbered_lines(handle))
    except OSError as error:
        return Failure(CassetteFormatError(f'cannot read cassette "{absolute}"', cause=error))
    return _finished(state, problem, absolute)


def load_cassette(path: str | os.PathLike[str]) -> CassetteFile:
    """The raising edge of `read_cassette`: returns the file or raises CassetteFormatError."""
    result = read_cassette(path)
    if isinstance(result, Failure):
        raise result.failure()
    return result.unwrap()
