"""Streaming verification: the loader's verdict and summary without holding the file.

Lines are consumed one by one; only the chain state (`_chain.ChainState`) is kept. When
some parent-context/request group repeats, its members' lines are read again by offset
and only their outcomes are canonicalized for the ambiguity count (FMT-19). A large
file on a machine with two free CPUs is verified as two ranges at once (`_split`); any
doubt there falls back to the in-order pass, so the verdict never depends on the split.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING

import orjson

from cassette_format._chain import ChainState
from cassette_format._lines import numbered_lines
from cassette_format._open import open_regular
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
    if isinstance(parsed, CassetteFormatError) or not isinstance(parsed.value, dict):
        return raw  # the line verified moments ago; changed since, it cannot match the others
    outcome = parsed.value["outcome"]
    if parsed.canonical is not None:
        # A canonical line's sub-objects are canonical, and orjson writes them identically.
        return orjson.dumps(outcome, option=orjson.OPT_SORT_KEYS)
    from cassette_canonical import canonical_json  # lazy: only non-canonical lines need it

    text: str | None = canonical_json(outcome).value_or(None)
    return raw if text is None else text.encode("utf-8", "surrogatepass")


# Below this size a helper process costs more than the half of the work it takes over.
SPLIT_MIN_BYTES = 16 * 1024 * 1024


def _free_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def _wants_split(size: int, jobs: int | None) -> bool:
    if size < SPLIT_MIN_BYTES or jobs == 1:
        return False
    return jobs is not None or _free_cpus() >= 2


def _in_order(stream: IO[bytes]) -> tuple[ChainState, CassetteFormatError | None]:
    """One pass from the stream's position (a pipe works too, unless a group repeats)."""
    state = ChainState(keep_records=False)
    return state, run_lines(state, numbered_lines(stream))


def _verify(
    stream: IO[bytes], path: str | None = None, jobs: int | None = 1
) -> dict[str, JsonValue] | CassetteFormatError:
    split = None
    if path is not None:
        size = os.fstat(stream.fileno()).st_size
        if _wants_split(size, jobs):
            from cassette_format._split import verify_in_two  # lazy: large files only

            split = verify_in_two(stream, path, size)
            if split is None:  # doubt: the in-order pass decides, from the start
                stream.seek(0)
    state, problem = _in_order(stream) if split is None else split
    if problem is not None:
        return problem
    return summary_of(state, stream)


def summary_of(state: ChainState, stream: IO[bytes]) -> dict[str, JsonValue] | CassetteFormatError:
    """The summary of a finished state, reading repeated groups' outcomes back from `stream`."""
    header = state.header_record
    if header is None:
        return CassetteFormatError("cassette is empty")
    ambiguous = 0
    for offsets in state.repeated_group_offsets():
        outcomes = {_outcome_text(stream, offset) for offset in offsets}
        if len(outcomes) > 1:
            ambiguous += 1
    return summary_document(header, state.tally, ambiguous)


def verify_stream(stream: IO[bytes]) -> Result[dict[str, JsonValue], CassetteFormatError]:
    """Verify a seekable binary stream line by line, in order; returns the summary (no `file`)."""
    from returns.result import Failure, Success  # lazy: `cassette verify` never needs it

    outcome = _verify(stream)
    return Failure(outcome) if isinstance(outcome, CassetteFormatError) else Success(outcome)


def _read(absolute: str, jobs: int | None) -> dict[str, JsonValue] | CassetteFormatError:
    """The summary of the file at `absolute`, or why not; I/O failures are FMT-18's message."""
    try:
        handle = open_regular(absolute)
        try:
            return _verify(handle, absolute, jobs)
        finally:
            handle.close()
    except OSError as error:
        return CassetteFormatError(f'cannot read cassette "{absolute}"', cause=error)


def verify_file(path: str | os.PathLike[str], *, jobs: int | None = None) -> dict[str, JsonValue]:
    """The raising file edge `cassette verify` calls: summary or CassetteFormatError.

    The core answers with a plain summary-or-error value here rather than a Result, so a
    `cassette verify` process never imports `returns` (start-up is paid per file in CI).
    Files of SPLIT_MIN_BYTES or more are verified as two ranges at once (this process and
    one helper) when two CPUs are free (`jobs=None`) or when `jobs` is 2 or more; `jobs=1`
    never starts a helper. The verdict is the same either way.
    """
    outcome = _read(os.path.abspath(os.fspath(path)), jobs)
    if isinstance(outcome, CassetteFormatError):
        raise outcome
    return outcome
