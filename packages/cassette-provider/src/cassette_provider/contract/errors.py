"""The error edge of cassette-provider: its frozen error value and every exception it raises.

Provider steps that can refuse return (or hold) a `ProviderProblem`; this module alone turns
one into the exception a caller catches, each a `CassetteError` with a stable code (ERR-1):
`provider_error` (a `ProviderRegistryError` for registry codes, else a `CassetteError`),
`pattern_error` (`PatternError`), `recorded_error` (`CassetteRecordedError`) and, for session
logs and per-session model replay, `session_error` (a `ModelReplayError`) from cassette-format's
`FormatProblem`. `error_facts` is the way back: the `{name, message, code?}` an error records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, NoReturn, TypeVar

from cassette_format.errors import CassetteError
from cassette_format.problem import FormatProblem
from cassette_format.records import RecordedError
from cassette_format.result_edge import or_raise
from cassette_format.sessions import SESSION_LOG_FORMAT, SESSION_LOG_READ, SESSION_LOG_WRITE
from cassette_topology.errors import INVALID_CONFIG
from cassette_topology.sessions import SESSION_HARVEST

if TYPE_CHECKING:
    from cassette_canonical import JsonValue
    from returns.result import Result

__all__ = [
    "DUPLICATE_PROVIDER",
    "INVALID_CONFIG",
    "NO_PROVIDER",
    "NO_UPSTREAM",
    "RECORDED_ERROR_CODE",
    "RUN_RESULT_SHAPE",
    "UNPRINTABLE_MESSAGE",
    "UNSUPPORTED_CAPABILITY",
    "CassetteRecordedError",
    "ModelReplayError",
    "PatternError",
    "ProviderProblem",
    "ProviderRegistryError",
    "RunResultShapeError",
    "SessionLogFormatError",
    "SessionReplayMismatchError",
    "error_facts",
    "pattern_error",
    "provider_error",
    "raise_session_error",
    "recorded_error",
    "session_error",
    "session_value_or_raise",
]

_Value = TypeVar("_Value")

#: No upstream provider is registered under the configured name.
NO_UPSTREAM: Final = "NO_UPSTREAM"
#: A replayed recorded error that carried no code of its own (REPLAY-6).
RECORDED_ERROR_CODE: Final = "CASSETTE_RECORDED_ERROR"
#: A FunctionProvider's run function returned something other than a result mapping.
RUN_RESULT_SHAPE: Final = "RUN_RESULT_SHAPE"
#: A provider is registered under a name already taken.
DUPLICATE_PROVIDER: Final = "DUPLICATE_PROVIDER"
#: A start names no registered provider.
NO_PROVIDER: Final = "NO_PROVIDER"
#: A start asks for a request field the provider's capabilities do not allow.
UNSUPPORTED_CAPABILITY: Final = "UNSUPPORTED_CAPABILITY"

_REGISTRY_CODES: Final = frozenset({DUPLICATE_PROVIDER, NO_PROVIDER, UNSUPPORTED_CAPABILITY})
_LOG_CODES: Final = frozenset(
    {SESSION_LOG_FORMAT, SESSION_LOG_READ, SESSION_LOG_WRITE, SESSION_HARVEST}
)


@dataclass(frozen=True, slots=True)
class ProviderProblem:
    """Why the provider refuses: the reference's message and a stable code; metadata only."""

    message: str
    code: str
    #: The exception behind the refusal, raised as the exception's `__cause__`.
    cause: BaseException | None = field(default=None, compare=False, repr=False)

    def __str__(self) -> str:
        return self.message


class CassetteRecordedError(CassetteError):
    """A recorded failure replayed: recorded message, `recorded_name` and code (REPLAY-6)."""

    def __init__(self, message: str, recorded_name: str, code: str | None = None) -> None:
        super().__init__(message, code if code is not None else RECORDED_ERROR_CODE)
        self.recorded_name = recorded_name


class RunResultShapeError(CassetteError):
    """A run function returned a plain value, not `{"output": [...], "stopReason": ...}`."""

    def __init__(self, message: str) -> None:
        super().__init__(message, RUN_RESULT_SHAPE)


class ProviderRegistryError(CassetteError):
    """A registry refusal with a stable `code` (duplicate name, no provider, capability)."""


class PatternError(CassetteError):
    """A custom pattern outside the supported subset, or one that does not compile."""

    def __init__(self, message: str) -> None:
        super().__init__(message, INVALID_CONFIG)


class ModelReplayError(CassetteError):
    """A per-session model replay or recording failure; `code` is stable, text metadata-only."""

    def __init__(self, error: FormatProblem) -> None:
        super().__init__(error.message, error.code, cause=error.cause)
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


def provider_error(problem: ProviderProblem) -> CassetteError:
    """The exception for a provider refusal, carrying its code and cause.

    A `ProviderRegistryError` for the registry codes, a `RunResultShapeError` for
    RUN_RESULT_SHAPE, else a plain `CassetteError`.
    """
    error: CassetteError
    if problem.code == RUN_RESULT_SHAPE:
        error = RunResultShapeError(problem.message)
    else:
        kind = ProviderRegistryError if problem.code in _REGISTRY_CODES else CassetteError
        error = kind(problem.message, problem.code)
    if problem.cause is not None:
        error.__cause__ = problem.cause
    return error


def pattern_error(problem: ProviderProblem) -> PatternError:
    """The exception for a refused custom redaction pattern (INVALID_CONFIG)."""
    return PatternError(problem.message)


def recorded_error(error: RecordedError) -> CassetteRecordedError:
    """The exception a replayed recorded error raises: its message, name and code (REPLAY-6)."""
    return CassetteRecordedError(error.message, error.name, error.code)


def session_error(problem: FormatProblem) -> ModelReplayError:
    """Turn a session-log or model-replay problem into the exception class of its code."""
    if problem.code in _LOG_CODES:
        return SessionLogFormatError(problem)
    return SessionReplayMismatchError(problem)


def raise_session_error(problem: FormatProblem) -> NoReturn:
    """Raise a session-log or model-replay problem as its exception (only at the edge)."""
    raise session_error(problem)


def session_value_or_raise(result: Result[_Value, FormatProblem]) -> _Value:
    """The success value, or the session failure raised as its exception (only at the edge)."""
    return or_raise(result, session_error)


#: A recorded error's message when the error's own `str()` raised (Python's own wording).
UNPRINTABLE_MESSAGE: Final = "<exception str() failed>"


def _attribute_text(error: BaseException, attribute: str) -> str | None:
    """The error's attribute as a plain `str`, or None: absent, not text, or raising when read.

    `type()` decides, so an object that only claims to be a `str` (`__class__`) is no text.
    """
    try:
        value = getattr(error, attribute, None)
    except Exception:  # a property of the upstream's own error class raised
        return None
    return str.__str__(value) if issubclass(type(value), str) else None


def _message_text(error: BaseException) -> str:
    """`str(error)` as a plain `str`, or UNPRINTABLE_MESSAGE when it raises (deep args too)."""
    try:
        return str.__str__(str(error))
    except Exception:
        return UNPRINTABLE_MESSAGE


def error_facts(error: BaseException) -> RecordedError:
    """`{name, message, code?}` of an error: explicit `name` attribute, else class (ERR-3).

    Each is stored as a plain `str` (a `StrEnum` code keeps its text, not its class), so an
    odd attribute can never make the line the writer refuses (issue 26). Reading them never
    raises: a `name`/`code` property that raises counts as absent and a `str()` that raises
    records UNPRINTABLE_MESSAGE, so the call still ends as its own line with the upstream's
    error, not with one from inside the recorder (ERR-3).
    """
    return RecordedError(
        name=_attribute_text(error, "name") or type(error).__name__,
        message=_message_text(error),
        code=_attribute_text(error, "code"),
    )
