"""Terminal-safe text: the reference's display() escaping and UTF-8 output rules (CLI-1, CLI-8).

Shared by the CLI and the pytest plugin, so every cassette-derived string is escaped once,
the same way, wherever it is shown.
"""

from __future__ import annotations

import re
from typing import Final

from cassette_canonical.strings import join_surrogate_pairs

__all__ = ["CONTROL_RANGES", "display", "join_surrogate_pairs", "printable"]

#: Code points in Cc, Cf, Zl or Zp, pinned from Node's ICU (Unicode 17.0) rather than taken
#: from this interpreter's `unicodedata` (Python 3.11 ships Unicode 14.0), so the escaping
#: does not drift with the Python version (GAP-28).
CONTROL_RANGES: Final[tuple[tuple[int, int], ...]] = (
    (0x0000, 0x001F),
    (0x007F, 0x009F),
    (0x00AD, 0x00AD),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x180E, 0x180E),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x2064),
    (0x2066, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001),
    (0xE0020, 0xE007F),
)


def _character_class(ranges: tuple[tuple[int, int], ...]) -> str:
    """A regex character class source matching exactly the given code point ranges."""
    parts = []
    for low, high in ranges:
        parts.append(f"\\U{low:08x}" if low == high else f"\\U{low:08x}-\\U{high:08x}")
    return "[" + "".join(parts) + "]"


CONTROL_CLASS: Final = _character_class(CONTROL_RANGES)
_CONTROL: Final = re.compile(CONTROL_CLASS)
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _escape_control(match: re.Match[str]) -> str:
    return f"\\u{{{ord(match.group()):04x}}}"


def display(text: str) -> str:
    """Escape Cc/Cf/Zl/Zp code points as `\\u{hex}` so cassette text cannot steer a terminal."""
    return _CONTROL.sub(_escape_control, join_surrogate_pairs(text))


def printable(text: str) -> str:
    """Text safe to encode as UTF-8: lone surrogates become U+FFFD, as Node writes them."""
    if _SURROGATE.search(text) is None:
        return text
    return _SURROGATE.sub("\ufffd", join_surrogate_pairs(text))
