"""The error edge of cassette-topology: the ERR-1 exceptions made from `TopologyError`s.

The only module of the package that builds an exception for a core failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from cassette_format.errors import CassetteError, format_error
from cassette_format.result_edge import or_raise
from returns.result import Result

from cassette_topology.errors import (
    CASSETTE_AMBIGUOUS,
    CASSETTE_MISMATCH,
    INVALID_CONFIG,
    TopologyError,
)

if TYPE_CHECKING:
    from cassette_topology.diagnostics import MismatchDiagnostic

T = TypeVar("T")


class CassetteMismatchError(CassetteError):
    """A live call cannot be matched without guessing (code CASSETTE_MISMATCH).

    `diagnostic` is the metadata-only DIAG-2 analysis when a lookup failed; it is None for
    construction refusals and unconsumed-interaction failures.
    """

    def __init__(
        self,
        message: str,
        *,
        diagnostic: MismatchDiagnostic | None = None,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message, CASSETTE_MISMATCH, cause=cause)
        self._diagnostic = diagnostic

    @property
    def diagnostic(self) -> MismatchDiagnostic | None:
        """Why no interaction matched: reason, actual identity and candidates."""
        return self._diagnostic


class CassetteAmbiguityError(CassetteError):
    """Several roots, a foreign subagent parent, a remap or ambiguous duplicates."""

    def __init__(self, message: str, *, cause: BaseException | None = None) -> None:
        super().__init__(message, CASSETTE_AMBIGUOUS, cause=cause)


def exception_for(error: TopologyError) -> Exception:
    """The exception for a topology failure; non-canonical input is a TypeError (ERR-3).

    A lazily read line that no longer verifies raises the loader's own CassetteFormatError.
    """
    if error.format_problem is not None:
        return format_error(error.format_problem)
    if error.code == CASSETTE_MISMATCH:
        return CassetteMismatchError(error.message, diagnostic=error.diagnostic)
    if error.code == CASSETTE_AMBIGUOUS:
        return CassetteAmbiguityError(error.message)
    if error.code == INVALID_CONFIG:
        return CassetteError(error.message, INVALID_CONFIG)
    return TypeError(error.message)


def value_or_raise(result: Result[T, TopologyError]) -> T:
    """At an edge: the success value, or the failure raised as its exception."""
    return or_raise(result, exception_for)
