"""Verify a large cassette as two ranges at once: this process the first, a helper the second.

The first range is a prefix of the file, so its first failure is exactly the in-order
verdict. The helper's range is checked line by line with its first link taken on trust;
the merge (`ChainState.absorb`) then checks that link, cross-range uniqueness and the
whole-file contiguity. Any doubt (a helper failure, a conflict, a finish problem) answers
None, and the caller verifies the whole file in order for the reference's exact message.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import IO

from cassette_format._chain import ChainState
from cassette_format._lines import MAX_LINE_BYTES, numbered_lines
from cassette_format._ranges import RangeFacts, decode_facts
from cassette_format._run import run_lines
from cassette_format.errors import CassetteFormatError

__all__ = ["split_offset", "verify_in_two", "verify_with_rest"]


def split_offset(stream: IO[bytes], size: int) -> int | None:
    """The start of the first line beginning after the middle byte, or None at the end."""
    stream.seek(size // 2)
    stream.readline()
    offset = stream.tell()
    return offset if 0 < offset < size else None


def _lines_before(stream: IO[bytes], stop: int) -> Iterator[bytes]:
    """Physical lines before byte `stop`, each read with the bounded `readline`."""
    position = 0
    while position < stop:
        chunk = stream.readline(MAX_LINE_BYTES + 2)
        if not chunk:
            return
        yield chunk
        position += len(chunk)


# The helper runs isolated (-I: no PYTHON* variables, no current directory on sys.path,
# so a directory being verified cannot shadow our modules) with this process's own path.
_HELPER_CODE = (
    "import sys; sys.path[:0] = {path!r}; "
    "from cassette_format._range_worker import main; raise SystemExit(main(sys.argv))"
)


def _start_helper(path: str, start: int) -> subprocess.Popen[bytes] | None:
    if getattr(sys, "frozen", False) or not sys.executable:
        return None
    search_path = [entry for entry in sys.path if os.path.isabs(entry)]
    code = _HELPER_CODE.format(path=search_path)
    try:
        return subprocess.Popen(
            [sys.executable, "-I", "-c", code, path, str(start)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def _collect(helper: subprocess.Popen[bytes]) -> RangeFacts | None:
    stdout = helper.stdout
    facts = None if stdout is None else decode_facts(stdout)
    return facts if helper.wait() == 0 else None


def _stop(helper: subprocess.Popen[bytes]) -> None:
    if helper.poll() is None:
        helper.kill()
    helper.wait()
    if helper.stdout is not None:
        helper.stdout.close()


Verdict = tuple[ChainState, CassetteFormatError | None]


def verify_in_two(stream: IO[bytes], path: str, size: int) -> Verdict | None:
    """(merged state, first-range error or None) when the split answered; None on doubt.

    The state is finished (contiguity checked) when no error is returned.
    """
    start = split_offset(stream, size)
    if start is None:
        return None
    helper = _start_helper(path, start)
    if helper is None:
        return None
    try:
        return verify_with_rest(stream, start, lambda: _collect(helper))
    finally:
        _stop(helper)


def verify_with_rest(
    stream: IO[bytes], start: int, rest: Callable[[], RangeFacts | None]
) -> Verdict | None:
    """Verify the lines before byte `start` here, then merge the facts `rest()` gives."""
    state = ChainState(keep_records=False)
    stream.seek(0)
    problem = run_lines(state, numbered_lines(_lines_before(stream, start)), finish=False)
    if problem is not None:
        return state, problem
    facts = rest()
    if facts is None or state.header_record is None or not state.absorb(facts):
        return None
    if state.finish() is not None:
        return None
    return state, None
