"""Drive a ChainState over numbered lines: the first problem of the run, as a value."""

from __future__ import annotations

from collections.abc import Iterator

from cassette_format.problem import FormatProblem
from cassette_format.read.chain import ChainState
from cassette_format.read.lines import LineOrProblem

__all__ = ["run_lines"]


def run_lines(
    state: ChainState, lines: Iterator[LineOrProblem], *, finish: bool = True
) -> FormatProblem | None:
    """Feed every line to `state`, then finish it; the first problem, or None.

    With `finish=False` the whole-file checks are left for later (a range of a file).
    """
    feed = state.feed
    for line in lines:
        if isinstance(line, FormatProblem):
            return line
        problem = feed(*line)
        if problem is not None:
            return problem
    return state.finish() if finish else None
