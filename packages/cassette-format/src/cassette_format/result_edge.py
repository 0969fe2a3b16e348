"""The raising edge of a Result pipeline, written once: the success value or the failure raised.

Core functions of every package return `returns` Results; only an edge (a file API, a provider
call, a pytest fixture) turns a Failure into an exception, by `match`ing here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from returns.result import Failure, Result, Success

__all__ = ["or_raise"]

_Value = TypeVar("_Value")
_Error = TypeVar("_Error")


def or_raise(
    result: Result[_Value, _Error], exception: Callable[[_Error], BaseException]
) -> _Value:
    """The success value, or `exception(failure)` raised (pass `identity` for an exception)."""
    match result:
        case Success(value):
            success: _Value = value  # `returns` types the matched inner value as Any
            return success
        case Failure(error):
            raise exception(error)
    raise AssertionError("a Result is a Success or a Failure")  # pragma: no cover
