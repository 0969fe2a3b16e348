"""JSON documents exactly as the reference prints them: `JSON.stringify(v, null, 2)` (CLI-9).

Strings are escaped as JSON.stringify escapes them (CANON-4), and then every Cc, Cf, Zl or
Zp character still raw is escaped as `\\uxxxx`, one escape per UTF-16 code unit, so the
document stays valid JSON and cannot steer a terminal. Walks are iterative.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from cassette_canonical.display_text import CONTROL_CLASS
from cassette_canonical.limits import MAX_SAFE_INTEGER
from cassette_canonical.strings import join_surrogate_pairs

__all__ = ["json_document", "json_string"]

_INDENT: Final = "  "
_SHORT_ESCAPES: Final = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
# Quote, backslash, C0 controls, lone surrogates, then the Cc/Cf/Zl/Zp post-pass set.
_NEEDS_ESCAPE: Final = re.compile('["\\\\\x00-\x1f\ud800-\udfff]|' + CONTROL_CLASS)


def _utf16_escape(character: str) -> str:
    units = character.encode("utf-16-be", "surrogatepass")
    return "".join(
        f"\\u{int.from_bytes(units[index : index + 2], 'big'):04x}"
        for index in range(0, len(units), 2)
    )


def _escape(match: re.Match[str]) -> str:
    character = match.group()
    short = _SHORT_ESCAPES.get(character)
    return short if short is not None else _utf16_escape(character)


def json_string(text: str) -> str:
    """A JSON string literal as the reference's document printer writes it."""
    return '"' + _NEEDS_ESCAPE.sub(_escape, join_surrogate_pairs(text)) + '"'


def _number(value: int | float) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "null"  # JSON.stringify writes non-finite numbers as null.
    if value == 0:
        return "0"  # JSON.stringify(-0) is "0".
    if isinstance(value, int) and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return str(value)
    from cassette_canonical import number_text  # only when needed: lean start-up

    text = number_text(value).value_or(None)
    if text is None:
        # An int no double holds: the reference would print the nearest double.
        return number_text(float(value)).value_or("null")
    return text


def _scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int | float):
        return _number(value)
    if isinstance(value, str):
        return json_string(value)
    return "null"  # Not JSON: JSON.stringify drops such values; documents never hold them.


@dataclass(slots=True)
class _Open:
    """A container being written: its remaining entries and its closing bracket."""

    entries: Iterator[tuple[str | None, object]]
    indent: str
    closing: str
    first: bool = True


def _entries(value: object) -> tuple[Iterator[tuple[str | None, object]], str, str] | None:
    """Entries, opening and closing bracket of a non-empty container; None for a scalar."""
    if isinstance(value, Mapping):
        if not value:
            return None
        return ((str(key), item) for key, item in value.items()), "{", "}"
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        if not value:
            return None
        return ((None, item) for item in value), "[", "]"
    return None


def _leaf(value: object) -> str:
    if isinstance(value, Mapping):
        return "{}"
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return "[]"
    return _scalar(value)


def json_document(value: object) -> str:
    """`JSON.stringify(value, null, 2)` plus the terminal-safety post-pass (CLI-9)."""
    parts: list[str] = []
    stack: list[_Open] = []

    def write(item: object, indent: str) -> None:
        container = _entries(item)
        if container is None:
            parts.append(_leaf(item))
            return
        entries, opening, closing = container
        parts.append(opening)
        stack.append(_Open(entries, indent, closing))

    write(value, "")
    while stack:
        frame = stack[-1]
        entry = next(frame.entries, None)
        if entry is None:
            stack.pop()
            parts.append("\n" + frame.indent + frame.closing)
            continue
        key, item = entry
        inner = frame.indent + _INDENT
        parts.append(("\n" if frame.first else ",\n") + inner)
        frame.first = False
        if key is not None:
            parts.append(json_string(key) + ": ")
        write(item, inner)
    return "".join(parts)
