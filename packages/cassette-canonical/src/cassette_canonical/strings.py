"""JavaScript ``JSON.stringify`` string escaping and UTF-16 code-unit key order."""

from __future__ import annotations

import re
from json.encoder import encode_basestring  # the C encoder when present; public, unlike `_json`
from typing import Final

_SURROGATE: Final = re.compile("[\ud800-\udfff]")
# Code-point order equals UTF-16 order unless a string holds a character at or above U+D800.
_ORDER_SENSITIVE: Final = re.compile("[\ud800-\U0010ffff]")


def utf16_sort_key(s: str) -> bytes:
    """Sort key giving JavaScript's default string order (UTF-16 code units, CANON-3).

    Python orders by code point, which puts U+10000 after U+FFFF; JavaScript compares
    the surrogate 0xD800 with 0xFFFF and puts it first. Big-endian UTF-16 bytes compare
    exactly as the code units do.
    """
    return s.encode("utf-16-be", "surrogatepass")


def sorts_by_code_point(joined_keys: str) -> bool:
    """Whether keys made of these characters sort the same by code point as by UTF-16 units."""
    return joined_keys.isascii() or _ORDER_SENSITIVE.search(joined_keys) is None


def quote(s: str) -> str:
    """Quote a string as JSON.stringify does (CANON-4): lone surrogates become ``\\udxxx``."""
    quoted = encode_basestring(s)
    if not has_surrogate(quoted):
        return quoted
    return _SURROGATE.sub(_escape_unit, join_surrogate_pairs(quoted))


def join_surrogate_pairs(s: str) -> str:
    """Combine each high+low surrogate code-point pair into its astral character, as JS sees it.

    A UTF-16 round trip does it in C: the pair's two code units decode as one character,
    while a lone surrogate passes through unchanged.
    """
    if not has_surrogate(s):
        return s
    return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def has_surrogate(s: str) -> bool:
    """Whether the text holds any surrogate code point (paired or lone).

    Strict UTF-8 encoding refuses exactly those, and runs several times faster than a
    regular-expression scan.
    """
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _escape_unit(match: re.Match[str]) -> str:
    """The six-character lowercase escape of one lone surrogate."""
    return f"\\u{ord(match.group()):04x}"
