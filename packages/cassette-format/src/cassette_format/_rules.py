"""The leaf rules of the closed schemas: one predicate or one raising check per value kind.

Each `require_*` check takes the path as (base, suffix) and joins it only when it fails,
so the common all-valid case builds no strings; the message is the reference's (FMT-9..14).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from cassette_format._js import first_unknown_key
from cassette_format._reject import Reject

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "MAX_SAFE_INTEGER",
    "as_object",
    "is_digest_text",
    "is_number",
    "is_safe_integer",
    "require_closed",
    "require_digest",
    "require_non_empty_string",
    "require_non_negative_finite",
    "require_non_negative_integer",
    "require_optional_string",
    "require_positive_integer",
]

MAX_SAFE_INTEGER = 2**53 - 1
_MAX_SAFE = MAX_SAFE_INTEGER
_DIGEST_MATCH = re.compile(r"sha256:[0-9a-f]{64}").fullmatch


def is_digest_text(value: object) -> bool:
    """A whole-string `sha256:<64 lowercase hex>` (CANON-8)."""
    return isinstance(value, str) and _DIGEST_MATCH(value) is not None


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_safe_integer(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return -_MAX_SAFE <= value <= _MAX_SAFE
    if isinstance(value, float):
        return math.isfinite(value) and value.is_integer() and abs(value) <= _MAX_SAFE
    return False


def as_object(value: object) -> Mapping[str, JsonValue] | None:
    return value if isinstance(value, dict) else None


def require_closed(value: Mapping[str, JsonValue], known: frozenset[str], path: str) -> None:
    if value.keys() <= known:
        return
    extra = first_unknown_key(value, known)
    raise Reject(f"{path}.{extra} is not supported", path=path)


def require_non_empty_string(value: object, base: str, suffix: str = "") -> None:
    if type(value) is str and value:
        return
    raise Reject(f"{base}{suffix} must be a non-empty string", path=base + suffix)


def require_digest(value: object, base: str, suffix: str = "") -> None:
    if type(value) is str and _DIGEST_MATCH(value) is not None:
        return
    raise Reject(f"{base}{suffix} must be a lowercase SHA-256 digest", path=base + suffix)


def require_non_negative_finite(value: object, base: str, suffix: str = "") -> None:
    kind = type(value)
    if kind is float and 0 <= value < math.inf:  # type: ignore[operator]
        return
    if kind is int and value >= 0:  # type: ignore[operator]
        return
    raise Reject(f"{base}{suffix} must be a non-negative finite number", path=base + suffix)


def require_positive_integer(value: object, base: str, suffix: str = "") -> None:
    if type(value) is int and 1 <= value <= _MAX_SAFE:
        return
    if is_safe_integer(value) and value >= 1:  # type: ignore[operator]
        return
    raise Reject(f"{base}{suffix} must be a positive safe integer", path=base + suffix)


def require_non_negative_integer(value: object, base: str, suffix: str = "") -> None:
    if type(value) is int and 0 <= value <= _MAX_SAFE:
        return
    if is_safe_integer(value) and value >= 0:  # type: ignore[operator]
        return
    raise Reject(f"{base}{suffix} must be a non-negative safe integer", path=base + suffix)


def require_optional_string(value: Mapping[str, JsonValue], key: str, path: str) -> None:
    if key in value and not isinstance(value[key], str):
        raise Reject(f"{path}.{key} must be a string when present", path=f"{path}.{key}")
