"""Cassette error types with stable codes (ERR-1): frozen values in Results, raised at edges."""

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


# What the interpreter itself sets on a raised exception; everything else is frozen.
_RAISE_MACHINERY = frozenset(
    {"__traceback__", "__cause__", "__context__", "__suppress_context__", "__notes__"}
)


class CassetteFormatError(CassetteError):
    """A malformed, partial or tampered cassette, or a refused write (code CASSETTE_FORMAT).

    A frozen value (code, message, line, JSON path): the core only ever returns it inside
    `Failure(...)`; only the file edges (`load_cassette`, `verify_file`, the writer) raise
    it, which is why it stays an Exception. Nothing can be set or deleted after
    construction except what `raise` itself records (traceback, cause, context, notes).
    `line` is the 1-based non-blank line the message names (None when file-wide) and
    `path` the JSON path of the offending member when one is known.
    """

    _line: int | None
    _path: str | None

    def __init__(
        self,
        message: str,
        *,
        line: int | None = None,
        path: str | None = None,
        cause: BaseException | None = None,
    ) -> None:
        super().__init__(message, CASSETTE_FORMAT_CODE, cause=cause)
        object.__setattr__(self, "_line", line)
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name: str, value: object) -> None:
        if name in _RAISE_MACHINERY or not self.__dict__.get("_frozen", False):
            super().__setattr__(name, value)
            return
        raise AttributeError(f"CassetteFormatError is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        if name in _RAISE_MACHINERY:
            super().__delattr__(name)
            return
        raise AttributeError(f"CassetteFormatError is frozen: cannot delete {name!r}")

    def __reduce__(self) -> tuple[object, ...]:
        return (_rebuild, (self.message, self.line, self.path))

    def at_line(self, line: int) -> CassetteFormatError:
        """The same problem naming `line` (a new value; this one is unchanged)."""
        return CassetteFormatError(self.message, line=line, path=self.path)

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


def _rebuild(message: str, line: int | None, path: str | None) -> CassetteFormatError:
    """Unpickle a CassetteFormatError (its cause is not carried)."""
    return CassetteFormatError(message, line=line, path=path)
