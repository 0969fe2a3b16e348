"""The raising edge of a Result pipeline: the value, or the failure raised as its exception."""

from __future__ import annotations

import pytest
from cassette_format.result_edge import or_raise
from returns.functions import identity
from returns.result import Failure, Result, Success


def test_a_success_gives_its_value() -> None:
    result: Result[int, str] = Success(3)
    assert or_raise(result, ValueError) == 3


def test_a_failure_raises_what_the_edge_makes_of_it() -> None:
    result: Result[int, str] = Failure("bad line")
    with pytest.raises(ValueError, match=r"^bad line$"):
        or_raise(result, ValueError)


def test_a_failure_holding_an_exception_raises_it_as_it_is() -> None:
    problem = LookupError("no such call")
    result: Result[int, LookupError] = Failure(problem)
    with pytest.raises(LookupError) as raised:
        or_raise(result, identity)
    assert raised.value is problem
