"""Provider-side errors: the recorded-error replay type and the facts stored for an error."""

from __future__ import annotations

from typing import Final

from cassette_format.errors import CassetteError
from cassette_format.records import RecordedError
from cassette_topology.errors import INVALID_CONFIG

__all__ = [
    "INVALID_CONFIG",
    "NO_UPSTREAM",
    "RECORDED_ERROR_CODE",
    "RUN_RESULT_SHAPE",
    "CassetteRecordedError",
    "RunResultShapeError",
    "error_facts",
]

NO_UPSTREAM: Final = "NO_UPSTREAM"
RECORDED_ERROR_CODE: Final = "CASSETTE_RECORDED_ERROR"
#: A FunctionProvider's run function returned something other than a result mapping.
RUN_RESULT_SHAPE: Final = "RUN_RESULT_SHAPE"


class CassetteRecordedError(CassetteError):
    """A recorded failure replayed: recorded message, `recorded_name` and code (REPLAY-6)."""

    def __init__(self, message: str, recorded_name: str, code: str | None = None) -> None:
        super().__init__(message, code if code is not None else RECORDED_ERROR_CODE)
        self.recorded_name = recorded_name


class RunResultShapeError(CassetteError):
    """A run function returned a plain value, not `{"output": [...], "stopReason": ...}`."""

    def __init__(self, message: str) -> None:
        super().__init__(message, RUN_RESULT_SHAPE)


def error_facts(error: BaseException) -> RecordedError:
    """`{name, message, code?}` of an error: explicit `name` attribute, else class (ERR-3).

    Each is stored as a plain `str` (a `StrEnum` code keeps its text, not its class), so an
    odd attribute can never make the line the writer refuses (issue 26).
    """
    name = getattr(error, "name", None)
    code = getattr(error, "code", None)
    return RecordedError(
        name=str.__str__(name) if isinstance(name, str) and name else type(error).__name__,
        message=str.__str__(str(error)),
        code=str.__str__(code) if isinstance(code, str) else None,
    )
