"""JavaScript ``Number#toString`` text for IEEE-754 doubles, and the D-1 losslessness rules."""

from __future__ import annotations

import math
from typing import Final

from returns.result import Failure, Result, Success

from cassette_canonical.errors import NON_LOSSLESS_NUMBER, NOT_JSON_VALUE, CanonicalError
from cassette_canonical.limits import MAX_SAFE_INTEGER

# Integers up to 2**53 are exact doubles whose shortest digits are the integer itself.
_SAFE: Final = MAX_SAFE_INTEGER + 1  # 2^53: the last integer of the exact run
_NON_LOSSLESS: Final = "canonical JSON contains a non-lossless number"


def number_text(x: int | float) -> Result[str, CanonicalError]:
    """Write a number as JavaScript's ``String(x)`` does, or fail if no double holds it exactly."""
    kind = type(x)
    if kind is int:
        text = int_text(x)  # type: ignore[arg-type]  # narrowed by the exact type check
    elif kind is float:
        text = float_text(x)
    else:
        return Failure(
            CanonicalError(NOT_JSON_VALUE, f"{kind.__name__} is not a JSON number", path="$")
        )
    if text is None:
        return Failure(CanonicalError(NON_LOSSLESS_NUMBER, _NON_LOSSLESS, path="$"))
    return Success(text)


def int_text(x: int) -> str | None:
    """JavaScript text of an int, or None when no double holds it exactly (D-1)."""
    if -_SAFE <= x <= _SAFE:
        return str(x)
    try:
        as_double = float(x)
    except OverflowError:
        return None
    if int(as_double) != x:
        return None
    return float_text(as_double)


def float_text(x: float) -> str | None:
    """JavaScript text of a double (CANON-5), or None for NaN, infinities and negative zero."""
    if x == 0.0:
        return None if math.copysign(1.0, x) < 0 else "0"
    if not math.isfinite(x):
        return None
    if x.is_integer() and -_SAFE <= x <= _SAFE:
        return str(int(x))
    sign = "-" if x < 0 else ""
    digits, point = _shortest_digits(abs(x))
    return sign + _layout(digits, point)


def _shortest_digits(x: float) -> tuple[str, int]:
    """Shortest round-trip digits d1..dk and n such that x = 0.d1..dk * 10**n (x > 0)."""
    text = repr(x)
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    raw = whole + fraction
    stripped = raw.lstrip("0")
    leading_zeros = len(raw) - len(stripped)
    digits = stripped.rstrip("0") or "0"
    point = len(whole) - leading_zeros + (int(exponent) if exponent else 0)
    return digits, point


def _layout(digits: str, n: int) -> str:
    """Place the decimal point or exponent exactly as ECMAScript Number::toString does."""
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    exponent = n - 1
    sign = "+" if exponent >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{head}e{sign}{abs(exponent)}"
