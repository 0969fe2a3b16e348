"""Exceptions of model-call replay, raised at the async edge with the core's stable codes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NoReturn, TypeVar

from cassette_canonical import JsonValue
from cassette_format.errors import CassetteError
from cassette_format.problem import FormatProblem
from cassette_format.result_edge import or_raise
from cassette_format.sessions import SESSION_LOG_WRITE
from cassette_topology.sessions import SESSION_HARVEST, SESSION_LOG_FORMAT, SESSION_LOG_READ
from returns.result import Result

_Value = TypeVar("_Value")


class ModelReplayError(CassetteError):
    """A per-session model replay or recording failure; `code` is stable, text metadata-only."""

    def __init__(self, error: FormatProblem) -> None:
        super().__init__(error.message, error.code)
        self.error = error
        self.session = error.session
        self.call_index = error.call_index

    @property
    def diagnostic(self) -> Mapping[str, JsonValue] | None:
        """The DIAG-style metadata document of a binding failure, if any."""
        return self.error.diagnostic


class SessionLogFormatError(ModelReplayError):
    """A session log cannot be read, parsed, chain-verified or harvested."""


class SessionReplayMismatchError(ModelReplayError):
    """A live model call cannot be routed to its session's recorded script."""


_LOG_CODES = frozenset({SESSION_LOG_FORMAT, SESSION_LOG_READ, SESSION_LOG_WRITE, SESSION_HARVEST})


def as_exception(error: FormatProblem) -> ModelReplayError:
    """Turn a core error into the exception class its code belongs to."""
    if error.code in _LOG_CODES:
        return SessionLogFormatError(error)
    return SessionReplayMismatchError(error)


def raise_error(error: FormatProblem) -> NoReturn:
    """Raise a core error as its exception (only at the edge)."""
    raise as_exception(error)


def value_or_raise(result: Result[_Value, FormatProblem]) -> _Value:
    """The success value, or the failure raised as its exception (only at the edge)."""
    return or_raise(result, as_exception)
