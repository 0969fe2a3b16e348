"""One frozen error value (code, message, line, JSON path) raised at one edge; FMT-18, ERR-1."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from cassette_format import CassetteError, InteractionRefused, parse_cassette
from cassette_format.errors import CASSETTE_FORMAT_CODE, CassetteFormatError, format_error
from cassette_format.problem import FormatProblem
from hypothesis import given
from hypothesis import strategies as st

_problems = st.builds(
    FormatProblem,
    message=st.text(max_size=40),
    line=st.none() | st.integers(min_value=1, max_value=10**6),
    path=st.none() | st.text(max_size=20),
    per_call=st.booleans(),
)


def test_fields_are_the_value() -> None:  # ERR-1
    problem = FormatProblem("line 2 hash mismatch", line=2, path="line 2.hash")
    assert (problem.code, problem.message, problem.line, problem.path) == (
        CASSETTE_FORMAT_CODE,
        "line 2 hash mismatch",
        2,
        "line 2.hash",
    )
    assert problem == FormatProblem("line 2 hash mismatch", line=2, path="line 2.hash")
    assert problem != FormatProblem("line 2 hash mismatch", line=3, path="line 2.hash")
    assert str(problem) == "line 2 hash mismatch"


@pytest.mark.parametrize("name", ["message", "line", "path", "code", "cause", "other"])
def test_nothing_can_be_set_or_deleted_after_construction(name: str) -> None:
    problem = FormatProblem("cassette is empty")
    with pytest.raises((AttributeError, TypeError)):
        setattr(problem, name, "changed")
    with pytest.raises((AttributeError, TypeError)):
        delattr(problem, name)
    assert (problem.message, problem.line, problem.path) == ("cassette is empty", None, None)


def test_the_cause_is_carried_but_not_part_of_equality() -> None:
    cause = OSError(2, "gone")
    problem = FormatProblem('cannot read cassette "/x"', cause=cause)
    assert problem.cause is cause
    assert problem == FormatProblem('cannot read cassette "/x"')


def test_the_core_returns_the_value_not_an_exception() -> None:
    problem = parse_cassette("").failure()
    assert type(problem) is FormatProblem
    assert problem.message == "cassette is empty"


@given(_problems)
def test_the_edge_raises_exactly_the_value(problem: FormatProblem) -> None:
    """`format_error` keeps code, message, line and path; the class follows `per_call`."""
    error = format_error(problem)
    assert isinstance(error, CassetteFormatError)
    assert isinstance(error, CassetteError)
    assert type(error) is (InteractionRefused if problem.per_call else CassetteFormatError)
    assert (error.code, error.message, error.line, error.path) == (
        problem.code,
        problem.message,
        problem.line,
        problem.path,
    )
    assert error.problem is problem
    assert str(error) == problem.message
    assert error.name == type(error).__name__


@given(_problems)
def test_the_value_and_its_exception_pickle_as_themselves(problem: FormatProblem) -> None:
    assert pickle.loads(pickle.dumps(problem)) == problem
    error = format_error(problem)
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is type(error)
    assert again == error


def test_raising_records_cause_and_traceback() -> None:  # FMT-18: raised at the edges
    cause = OSError(2, "gone")
    with pytest.raises(CassetteFormatError) as caught:
        raise format_error(FormatProblem('cannot read cassette "/x"', cause=cause))
    assert caught.value.__cause__ is cause
    assert caught.value.__traceback__ is not None


def test_the_public_constructors_still_make_the_same_exception() -> None:
    """`CassetteFormatError(message, line=, path=)` is what `format_error` builds for it."""
    built = CassetteFormatError("line 4 duplicates sequence 2", line=4, path="$.sequence")
    assert built == format_error(FormatProblem("line 4 duplicates sequence 2", 4, "$.sequence"))
    assert InteractionRefused("too long").problem.per_call


def test_at_line_is_a_new_value() -> None:
    problem = FormatProblem("line 1 is not a cassette header", path="header")
    moved = problem.at_line(1)
    assert (moved.line, moved.path, problem.line) == (1, "header", None)
    assert format_error(problem).at_line(1).problem == moved


def test_the_value_is_a_slotted_dataclass() -> None:
    assert dataclasses.is_dataclass(FormatProblem)
    assert not hasattr(FormatProblem("x"), "__dict__")
