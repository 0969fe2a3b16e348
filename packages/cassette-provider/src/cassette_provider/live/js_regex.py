"""Translate the documented subset of JavaScript regex sources (flags `gi`) to Python (GAP-8)."""

from __future__ import annotations

import re
from typing import Final

from returns.result import Failure, Result, Success

from cassette_provider.contract.errors import INVALID_CONFIG, PatternError, ProviderProblem

__all__ = ["JS_SPACE_CLASS", "JS_SPACE_MEMBERS", "PatternError", "compile_js_pattern"]

#: Members of JavaScript's `\s` (FMT-3), for use inside a character class.
JS_SPACE_MEMBERS: Final = (
    "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
)
#: JavaScript's `\s` as a Python class.
JS_SPACE_CLASS: Final = f"[{JS_SPACE_MEMBERS}]"
_DOT: Final = "[^\\n\\r\\u2028\\u2029]"
#: Escapes whose meaning is the same in both dialects (with re.ASCII).
_SAME: Final = frozenset("dDwWbBnrtfv0123456789xu") | frozenset("\\/^$.*+?()[]{}|-")


def _translate(source: str) -> str | None:
    """The Python source for a JavaScript source, or None when it is outside the subset."""
    if not source.isascii() or "(?<" in source.replace("(?<=", "").replace("(?<!", ""):
        return None
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(source):
        char = source[index]
        if char == "\\":
            if index + 1 >= len(source):
                return None
            escaped = source[index + 1]
            index += 2
            if escaped == "s":
                out.append(JS_SPACE_MEMBERS if in_class else JS_SPACE_CLASS)
            elif escaped == "S" and not in_class:
                out.append(f"[^{JS_SPACE_MEMBERS}]")
            elif escaped in _SAME and not (in_class and escaped in "bB"):
                out.append("\\" + escaped)
            else:
                return None
            continue
        index += 1
        if in_class:
            if char == "]":
                in_class = False
            elif char == "[":
                out.append("\\[")
                continue
            out.append(char)
        elif char == "[":
            if source.startswith("^]", index) or source.startswith("]", index):
                return None  # `[^]` and `[]` mean other things in JavaScript
            in_class = True
            out.append(char)
            if source.startswith("^", index):
                out.append("^")
                index += 1
        elif char == "$":
            out.append("\\Z")
        elif char == ".":
            out.append(_DOT)
        elif char == "(" and source.startswith("?P", index):
            return None
        else:
            out.append(char)
    return None if in_class else "".join(out)


def compile_js_pattern(source: str) -> Result[re.Pattern[str], ProviderProblem]:
    """Compile a JavaScript source with flags `gi`, or refuse it (REDACT-4, GAP-8)."""
    refused = ProviderProblem(f'invalid cassette redaction pattern "{source}"', INVALID_CONFIG)
    translated = _translate(source)
    if translated is None:
        return Failure(refused)
    try:
        return Success(re.compile(translated, re.ASCII | re.IGNORECASE))
    except (re.error, OverflowError, RecursionError):
        return Failure(refused)
