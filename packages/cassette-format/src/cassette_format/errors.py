"""The error edge of cassette-format: the exceptions users catch, made from `FormatProblem`s.

The core returns frozen `FormatProblem` values; this module alone builds the exception for
one (`format_error`), so `load_cassette`, `verify_file`, the writer and the lock raise what
it returns. `CassetteError` is the base of every error a user can catch from cassette
(ERR-1): each has a stable `code`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from cassette_format.problem import CASSETTE_FORMAT_CODE, FormatProblem

if TYPE_CHECKING:
    from returns.result import Result

__all__ = [
    "CASSETTE_FORMAT_CODE",
    "CassetteError",
    "CassetteFormatError",
    "FormatProblem",
    "InteractionRefused",
    "format_error",
    "value_or_raise",
]

_Value = TypeVar("_Value")


class CassetteError(Exception):
    """Base of every cassette failure; `code` is stable (INVALID_CONFIG, NO_UPSTREAM, ...)."""

    def __init__(self, message: str, code: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self._message = message
        self._code = code
        if cause is not None:
            self.__cause__ = cause

    @property
    def code(self) -> str:
        """The stable machine-readable error code."""
        return self._code

    @property
    def message(self) -> str:
        """The human message, identical to the reference's template."""
        return self._message

    @property
    def name(self) -> str:
        """The class name, as the reference's `error.name` (ERR-1)."""
        return type(self).__name__

    def __str__(self) -> str:
        return self._message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self._code!r}, message={self._message!r})"


class CassetteFormatError(CassetteError):
    """A malformed, partial or tampered cassette, or a refused write (code CASSETTE_FORMAT).

    The exception face of a `FormatProblem` (`problem`): `line` is the 1-based non-blank
    line the message names (None when file-wide), `path` the JSON path of the offending
    member when one is known. Equal when their problems are equal.
    """

    #: Whether this class refuses one interaction only (`FormatProblem.per_call`).
    _per_call = False

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        path: str | None = None,
        cause: BaseException | None = None,
    ) -> None:
        self._init(FormatProblem(message, line, path, cause=cause, per_call=self._per_call))

    def _init(self, problem: FormatProblem) -> None:
        super().__init__(problem.message, problem.code, cause=problem.cause)
        self._problem = problem

    @classmethod
    def of(cls, problem: FormatProblem) -> CassetteFormatError:
        """The exception for `problem` (its class is `cls`; the problem is kept as it is)."""
        error = cls.__new__(cls)
        error._init(problem)
        return error

    @property
    def problem(self) -> FormatProblem:
        """The frozen value this exception raises."""
        return self._problem

    @property
    def line(self) -> int | None:
        """1-based non-blank line number named by the message, if any."""
        return self._problem.line

    @property
    def path(self) -> str | None:
        """JSON path (e.g. `$.outcome.result.output[2]`) of the offending member, if known."""
        return self._problem.path

    def at_line(self, line: int) -> CassetteFormatError:
        """The same problem naming `line`, as a new exception (this one is unchanged)."""
        return format_error(self._problem.at_line(line))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CassetteFormatError):
            return NotImplemented
        return type(self) is type(other) and self._problem == other._problem

    def __hash__(self) -> int:
        return hash(self._problem)

    def __reduce__(self) -> tuple[object, ...]:
        return (format_error, (self._problem,))

    def __repr__(self) -> str:
        problem = self._problem
        return (
            f"{type(self).__name__}(message={problem.message!r}, line={problem.line!r}, "
            f"path={problem.path!r})"
        )


class InteractionRefused(CassetteFormatError):
    """One interaction no reader would accept: the writer goes on, the call still ends as a line.

    In its place the writer wrote the same call (same sequence, keys and request) ending as
    a `result-error` (`start-error` if unpublished) whose error names this refusal, so the
    chain stays whole; every other append and the commit are unaffected. Only when even that
    line would be refused (a request over the bound) is nothing written.
    """

    _per_call = True


def format_error(problem: FormatProblem) -> CassetteFormatError:
    """The exception a caller catches for `problem` (an `InteractionRefused` when per call)."""
    return (InteractionRefused if problem.per_call else CassetteFormatError).of(problem)


def value_or_raise(result: Result[_Value, FormatProblem]) -> _Value:
    """At a file edge: the success value, or the failure raised as its exception."""
    from cassette_format.result_edge import or_raise  # lazy: `cassette verify` never needs it

    return or_raise(result, format_error)
