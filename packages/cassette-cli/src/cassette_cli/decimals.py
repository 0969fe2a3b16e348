"""JavaScript `Number#toFixed(1)` text: exact binary value, ties away from zero (CLI-10)."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Final

__all__ = ["one_decimal"]

_TENTH: Final = Decimal("0.1")
#: From this magnitude on, toFixed falls back to Number#toString.
_EXPONENT_LIMIT: Final = 1e21


def _non_finite_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def one_decimal(value: int | float) -> str:
    """`value.toFixed(1)` as JavaScript prints it (12.25 -> "12.3", -0.04 -> "-0.0")."""
    if isinstance(value, float) and not math.isfinite(value):
        return _non_finite_text(value)
    if abs(value) >= _EXPONENT_LIMIT:
        from cassette_cli.documents import js_number

        return js_number(value)
    if value == 0:
        return "0.0"
    # Decimal(float) is the exact binary value, so ties are decided as JS decides them.
    return format(Decimal(value).quantize(_TENTH, rounding=ROUND_HALF_UP), "f")
