"""The leaf rules of the closed schemas (FMT-7 predicates, the T-* templates of FMT-9..14).

Each rule returns `Success(value narrowed to its type)` or `Failure(FormatProblem)`
with the reference's exact message; the ordered checks chain them with `Result.do`, so
the first failure wins. The path is taken as (base, suffix) and joined only on failure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from cassette_canonical import is_digest
from cassette_canonical.limits import MAX_SAFE_INTEGER
from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.text.js import first_unknown_key

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "PASSED",
    "Checked",
    "an_object",
    "boolean",
    "closed",
    "digest",
    "fails",
    "holds",
    "is_digest_text",
    "is_number",
    "is_safe_integer",
    "non_empty_string",
    "non_negative_finite",
    "non_negative_integer",
    "optional_string",
    "positive_integer",
    "string_list",
]

_MAX_SAFE = MAX_SAFE_INTEGER

Checked = Result[None, FormatProblem]
JsonObject = Mapping[str, "JsonValue"]
PASSED: Final[Checked] = Success(None)


def fails(message: str, path: str | None = None, line: int | None = None) -> Checked:
    """A failed check with the reference's message."""
    return Failure(FormatProblem(message, line=line, path=path))


def holds(condition: bool, message: str, path: str | None = None) -> Checked:
    """PASSED when `condition` holds, else the failure `message` (built by the caller)."""
    return PASSED if condition else fails(message, path)


#: A whole-string `sha256:<64 lowercase hex>` (CANON-8); the shape is canonical's.
is_digest_text = is_digest


def is_number(value: object) -> bool:
    """A JSON number (never a boolean)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_safe_integer(value: object) -> bool:
    """Integral and within +-(2^53 - 1) (FMT-7), as an int or an integral float."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -_MAX_SAFE <= value <= _MAX_SAFE
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and abs(value) <= _MAX_SAFE
    return False


def an_object(
    value: object, message: str, path: str | None = None
) -> Result[JsonObject, FormatProblem]:
    """T-obj: a JSON object (neither null nor an array); else `message`."""
    if isinstance(value, dict):
        return Success(value)
    return Failure(FormatProblem(message, path=path))


def closed(value: JsonObject, known: frozenset[str], path: str) -> Checked:
    """T-key: only `known` members; else the first other key in JS property order (FMT-6)."""
    if value.keys() <= known:
        return PASSED
    return fails(f"{path}.{first_unknown_key(value, known)} is not supported", path)


def non_empty_string(value: object, base: str, suffix: str = "") -> Result[str, FormatProblem]:
    """T-str."""
    if isinstance(value, str) and value:
        return Success(value)
    return Failure(FormatProblem(f"{base}{suffix} must be a non-empty string", path=base + suffix))


def digest(value: object, base: str, suffix: str = "") -> Result[str, FormatProblem]:
    """T-dig: `sha256:` and 64 lowercase hex digits."""
    if isinstance(value, str) and is_digest(value):
        return Success(value)
    message = f"{base}{suffix} must be a lowercase SHA-256 digest"
    return Failure(FormatProblem(message, path=base + suffix))


def non_negative_finite(
    value: object, base: str, suffix: str = ""
) -> Result[int | float, FormatProblem]:
    """T-fin: a finite number >= 0."""
    if isinstance(value, float) and 0 <= value < math.inf:
        return Success(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return Success(value)
    message = f"{base}{suffix} must be a non-negative finite number"
    return Failure(FormatProblem(message, path=base + suffix))


def _safe_integer_at_least(value: object, low: int) -> int | None:
    """The int a safe integer >= `low` denotes (`2.0` is 2), else None."""
    if isinstance(value, bool) or not is_safe_integer(value):
        return None
    if isinstance(value, int | float) and value >= low:
        return int(value)
    return None


def _safe_integer(
    value: object, least: int, kind: str, base: str, suffix: str
) -> Result[int, FormatProblem]:
    """An integral value in [least, 2^53 - 1], else `<path> must be a <kind> safe integer`."""
    number = _safe_integer_at_least(value, least)
    if number is not None:
        return Success(number)
    message = f"{base}{suffix} must be a {kind} safe integer"
    return Failure(FormatProblem(message, path=base + suffix))


def positive_integer(value: object, base: str, suffix: str = "") -> Result[int, FormatProblem]:
    """T-pos: integral, 1 <= v <= 2^53 - 1."""
    return _safe_integer(value, 1, "positive", base, suffix)


def non_negative_integer(value: object, base: str, suffix: str = "") -> Result[int, FormatProblem]:
    """T-nni: integral, 0 <= v <= 2^53 - 1."""
    return _safe_integer(value, 0, "non-negative", base, suffix)


def optional_string(value: JsonObject, key: str, path: str) -> Checked:
    """T-sp: a string when present."""
    if key in value and not isinstance(value[key], str):
        return fails(f"{path}.{key} must be a string when present", f"{path}.{key}")
    return PASSED


def boolean(value: object, message: str, path: str) -> Result[bool, FormatProblem]:
    """A JSON boolean; else `message`."""
    if isinstance(value, bool):
        return Success(value)
    return Failure(FormatProblem(message, path=path))


def string_list(value: object, message: str, path: str) -> Checked:
    """An array of strings; else `message`."""
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return PASSED
    return fails(message, path)
