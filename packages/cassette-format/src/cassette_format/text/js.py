"""JavaScript semantics the reference's messages and line rules depend on (FMT-3, FMT-6, FMT-8)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from cassette_canonical.limits import MAX_SAFE_INTEGER

__all__ = ["JS_WHITESPACE", "first_unknown_key", "is_js_blank", "js_string"]

# String.prototype.trim's set: WhiteSpace + LineTerminator. Not U+0085, not U+001C-001F.
JS_WHITESPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_MAX_ARRAY_INDEX = 4294967294


def is_js_blank(text: str) -> bool:
    """True when JavaScript's trim() leaves nothing (FMT-3)."""
    return not text.strip(JS_WHITESPACE)


def _array_index(key: str) -> int | None:
    """The numeric value of an array-index-like key (canonical decimal 0..2^32-2), else None."""
    if not key or not key.isascii() or not key.isdigit():
        return None
    if len(key) > 1 and key[0] == "0":
        return None
    value = int(key)
    return value if value <= _MAX_ARRAY_INDEX else None


def first_unknown_key(value: Mapping[str, object], known: frozenset[str]) -> str | None:
    """The first key not in `known`, in JavaScript property order (FMT-6)."""
    first_plain: str | None = None
    lowest_index: tuple[int, str] | None = None
    for key in value:
        if key in known:
            continue
        index = _array_index(key)
        if index is None:
            if first_plain is None:
                first_plain = key
        elif lowest_index is None or index < lowest_index[0]:
            lowest_index = (index, key)
    if lowest_index is not None:
        return lowest_index[1]
    return first_plain


def _number_string(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    from cassette_canonical import number_text  # lazy: keeps `cassette verify` imports lean

    rendered: str = number_text(value).value_or(repr(value))
    return rendered


def js_string(value: object, *, present: bool = True) -> str:
    """JavaScript String(value) for JSON values, iteratively (FMT-8)."""
    if not present:
        return "undefined"
    parts: list[str] = []
    # Each entry is (value, inside_array): null inside an array renders as "".
    pending: list[tuple[object, bool] | str] = [(value, False)]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        current, nested = item
        if current is None:
            parts.append("" if nested else "null")
        elif current is True:
            parts.append("true")
        elif current is False:
            parts.append("false")
        elif isinstance(current, int | float):
            parts.append(
                _number_string(float(current))
                if isinstance(current, float)
                else _int_string(current)
            )
        elif isinstance(current, str):
            parts.append(current)
        elif isinstance(current, list):
            items: Iterable[object] = current
            staged: list[tuple[object, bool] | str] = []
            for position, element in enumerate(items):
                if position:
                    staged.append(",")
                staged.append((element, True))
            pending.extend(reversed(staged))
        else:
            parts.append("[object Object]")
    return "".join(parts)


def _int_string(value: int) -> str:
    if abs(value) <= MAX_SAFE_INTEGER + 1:  # integers a double holds exactly
        return str(value)
    return _number_string(float(value))
