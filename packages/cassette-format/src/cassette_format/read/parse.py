"""Parse and verify a whole cassette document (FMT-1..18); `load_cassette` is the file edge.

The core is one pipeline, `flow(raw, _document_lines, _linked_chain, bind(_cassette_file))`:
the raw document's numbered lines; each line parsed (FMT-4/5), checked (FMT-9/FMT-10),
decoded to a typed, frozen record and linked onto the chain (FMT-15/16) by
`_chain.ChainState.feed`, then the whole-file checks (FMT-17); the finished chain as a
`CassetteFile`. Only `load_cassette` raises (through `errors`); everything else returns a
Result carrying a `FormatProblem`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from functools import partial

from returns.pipeline import flow
from returns.pointfree import bind
from returns.result import Failure, Result, Success

from cassette_format.errors import value_or_raise
from cassette_format.problem import FormatProblem
from cassette_format.read.chain import ChainState
from cassette_format.read.lines import LineOrProblem, iter_text_lines, numbered_lines
from cassette_format.read.open import open_regular
from cassette_format.read.run import run_lines
from cassette_format.read.tail_seal import run_sealed
from cassette_format.records.cassette_file import CassetteFile

__all__ = ["load_cassette", "parse_cassette", "read_cassette"]


def _document_lines(data: bytes | str) -> Iterator[LineOrProblem]:
    """Bytes are decoded as strict UTF-8 line by line (D-2); a `str` is taken as decoded."""
    return iter_text_lines(data) if isinstance(data, str) else numbered_lines(io.BytesIO(data))


def _linked_chain(
    lines: Iterator[LineOrProblem], cassette: str | None = None
) -> Result[ChainState, FormatProblem]:
    """Every line parsed, checked, decoded and linked, then the whole-file checks (FMT-17).

    With the `cassette` path the lines came from, its tail seal is checked too.
    """
    state = ChainState(keep_records=True)
    problem = run_lines(state, lines) if cassette is None else run_sealed(state, lines, cassette)
    return Success(state) if problem is None else Failure(problem)


def _cassette_file(state: ChainState, source: str | None) -> Result[CassetteFile, FormatProblem]:
    """The verified file of a finished chain."""
    header = state.header
    if header is None:  # finish() guarantees a header; kept for the type checker
        return Failure(FormatProblem("cassette is empty"))
    return Success(CassetteFile(header, tuple(state.interactions), source))


def parse_cassette(
    data: bytes | str, source: str | None = None
) -> Result[CassetteFile, FormatProblem]:
    """Verify `data` exactly as the reference loader does and return every record."""
    return flow(data, _document_lines, _linked_chain, bind(partial(_cassette_file, source=source)))


def read_cassette(path: str | os.PathLike[str]) -> Result[CassetteFile, FormatProblem]:
    """Read and verify a regular file as a stream; else `cannot read cassette "<abs>"` (FMT-18).

    FIFOs, devices, directories and sockets are refused without blocking (`_open`).
    """
    absolute = os.path.abspath(os.fspath(path))
    try:
        with open_regular(absolute) as handle:
            linked = _linked_chain(numbered_lines(handle), absolute)
    except OSError as error:
        return Failure(FormatProblem(f'cannot read cassette "{absolute}"', cause=error))
    return linked.bind(partial(_cassette_file, source=absolute))


def load_cassette(path: str | os.PathLike[str]) -> CassetteFile:
    """The raising edge of `read_cassette`: returns the file or raises CassetteFormatError."""
    return value_or_raise(read_cassette(path))
