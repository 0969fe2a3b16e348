"""Drive a ChainState over numbered lines and turn the first Reject into an error value."""

from __future__ import annotations

from collections.abc import Iterator

from cassette_format._chain import ChainState
from cassette_format._lines import NumberedLine
from cassette_format._reject import Reject
from cassette_format.errors import CassetteFormatError

__all__ = ["run_lines"]


def run_lines(
    state: ChainState, lines: Iterator[NumberedLine], *, finish: bool = True
) -> CassetteFormatError | None:
    """Feed every line to `state`, then finish it; the first failure as an error value.

    With `finish=False` the whole-file checks are left for later (a range of a file).
    """
    number = 0
    try:
        for number, raw, text, offset in lines:
            state.feed(number, raw, text, offset)
        if finish:
            state.finish()
    except Reject as reject:
        line = reject.line
        if line is None and (reject.message.startswith("line ") or state.header_record is None):
            line = number or None  # header problems name line 1; file-wide ones no line
        return CassetteFormatError(reject.message, line=line, path=reject.path)
    return None
