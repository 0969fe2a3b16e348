"""Cassette error types with stable codes (ERR-1): raised at edges, carried as values in Results."""

from __future__ import annotations

__all__ = ["CASSETTE_FORMAT_CODE", "CassetteError", "CassetteFormatError"]

CASSETTE_FORMAT_CODE = "CASSETTE_FORMAT"


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

    Instances are treated as immutable values: the core returns them inside
    `Failure(...)`, the file edges raise them. `line` is the 1-based non-blank line
    number the message names (None when the problem is file-wide) and `path` the
    JSON path of the offending member when one is known.
    """

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        path: str | None = None,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message, CASSETTE_FORMAT_CODE, cause=cause)
        self._line = line
        self._path = path

    @property
    def line(self) -> int | None:
        """1-based non-blank line number named by the message, if any."""
        return self._line

    @property
    def path(self) -> str | None:
        """JSON path (e.g. `$.outcome.result.output[2]`) of the offending member, if known."""
        return self._path

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CassetteFormatError):
            return NotImplemented
        return (self.code, self.message, self.line, self.path) == (
            other.code,
            other.message,
            other.line,
            other.path,
        )

    def __hash__(self) -> int:
        return hash((self.code, self.message, self.line, self.path))

    def __repr__(self) -> str:
        return (
            f"CassetteFormatError(message={self.message!r}, line={self.line!r}, path={self.path!r})"
        )
