"""Streaming verification: the loader's verdict and summary without holding the file.

Lines are consumed one by one; only the chain state (`_chain.ChainState`) is kept. When
some parent-context/request group repeats, its members' lines are read again by offset
and only their outcomes are canonicalized for the ambiguity count (FMT-19).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import IO, TYPE_CHECKING, cast

import orjson

from cassette_format._chain import ChainState
from cassette_format._lines import numbered_lines
from cassette_format._record_line import parse_record
from cassette_format._run import run_lines
from cassette_format.errors import CassetteFormatError
from cassette_format.summary import summary_document

if TYPE_CHECKING:
    from cassette_canonical import JsonValue
    from returns.result import Result

__all__ = ["verify_file", "verify_stream"]


def _outcome_text(stream: IO[bytes], offset: int) -> bytes:
    stream.seek(offset)
    raw = stream.readline().rstrip(b"\n").rstrip(b"\r")
    parsed = parse_record(raw, None, 0)
    outcome = cast(Mapping[str, "JsonValue"], parsed.value)["outcome"]
    if parsed.canonical is not None:
        # A canonical line's sub-objects are canonical, and orjson writes them identically.
        return orjson.dumps(outcome, option=orjson.OPT_SORT_KEYS)
    from cassette_canonical import canonical_json  # lazy: only non-canonical lines need it

    text: str | None = canonical_json(outcome).value_or(None)
    return raw if text is None else text.encode("utf-8", "surrogatepass")


def _verify(stream: IO[bytes]) -> dict[str, JsonValue] | CassetteFormatError:
    state = ChainState(keep_records=False)
    problem = run_lines(state, numbered_lines(stream))
    if problem is not None:
        return problem
    header = state.header
    if header is None:
        return CassetteFormatError("cassette is empty")
    ambiguous = 0
    for offsets in state.repeated_group_offsets():
        outcomes = {_outcome_text(stream, offset) for offset in offsets}
        if len(outcomes) > 1:
            ambiguous += 1
    return summary_document(header, state.tally, ambiguous)


def verify_stream(stream: IO[bytes]) -> Result[dict[str, JsonValue], CassetteFormatError]:
    """Verify a seekable binary stream line by line; returns the summary (no `file`)."""
    from returns.result import Failure, Success

    outcome = _verify(stream)
    if isinstance(outcome, CassetteFormatError):
        return Failure(outcome)
    return Success(outcome)


def verify_file(path: str | os.PathLike[str]) -> dict[str, JsonValue]:
    """The raising file edge `cassette verify` calls: summary or CassetteFormatError."""
    absolute = os.path.abspath(os.fspath(path))
    try:
        handle = open(absolute, "rb")  # noqa: SIM115 - closed below, errors mapped first
    except OSError as error:
        raise CassetteFormatError(f'cannot read cassette "{absolute}"', cause=error) from error
    try:
        outcome = _verify(handle)
    except OSError as error:
        raise CassetteFormatError(f'cannot read cassette "{absolute}"', cause=error) from error
    finally:
        handle.close()
    if isinstance(outcome, CassetteFormatError):
        raise outcome
    return outcome
