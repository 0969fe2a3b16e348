"""An iterative JSON.parse for one cassette line: JS semantics, duplicate members flagged (FMT-4/5).

Used for every line the fast canonical check cannot vouch for. It never recurses (CANON-9:
20,000 nested tool-results are ~40,000 levels), decodes numbers as doubles (D-1: integer
tokens become the double's exact int, `-0` stays a negative-zero float so canonicalization
rejects it as the reference does) and reports duplicates only when the syntax is valid.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from cassette_format.errors import CassetteFormatError

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["parse_line"]

_WS = re.compile(r"[ \t\n\r]*")
# Possessive repeats: the regex engine keeps no backtracking state per character (the
# plain `(?:a|b)*` form held ~150 bytes per character of a long string).
_STRING = re.compile(r'"((?:[^"\\\x00-\x1f]++|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+)"')
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_SAFE = 2**53


class _Syntax(Exception):
    """Malformed JSON text."""


def _string_at(text: str, pos: int) -> tuple[str, int]:
    match = _STRING.match(text, pos)
    if match is None:
        raise _Syntax
    body = match.group(1)
    if "\\" in body:
        # A single string token: json decodes escapes and joins surrogate pairs, keeps lone ones.
        body = json.loads(match.group(0))
    return body, match.end()


def _number_at(text: str, pos: int) -> tuple[int | float, int]:
    match = _NUMBER.match(text, pos)
    if match is None or match.end() == pos:
        raise _Syntax
    token = match.group(0)
    if match.group(1) is None and match.group(2) is None:
        if token == "-0":
            return -0.0, match.end()
        if len(token) <= 17:
            exact = int(token)
            if -_SAFE <= exact <= _SAFE:
                return exact, match.end()
        rounded = float(token)
        return (
            int(rounded) if rounded not in (float("inf"), float("-inf")) else rounded
        ), match.end()
    return float(token), match.end()


def _skip(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return pos if match is None else match.end()


def parse_line(text: str, line: int) -> JsonValue | CassetteFormatError:
    """Parse one line as JSON.parse would; else the reference's message as a value."""
    try:
        value, duplicate = _parse(text)
    except (_Syntax, ValueError, RecursionError):
        return CassetteFormatError(f"line {line} is not valid JSON", line=line)
    if duplicate:
        return CassetteFormatError(
            f"line {line} contains a duplicate JSON object member", line=line
        )
    return value


_LITERALS: dict[str, JsonValue] = {"true": True, "false": False, "null": None}


def _parse(text: str) -> tuple[JsonValue, bool]:
    """Return (value, saw_duplicate_member); raises _Syntax on malformed text."""
    duplicate = False
    # Stack frames: (container, key awaiting its value or None for arrays).
    stack: list[tuple[dict[str, JsonValue] | list[JsonValue], str | None]] = []
    root: JsonValue = None
    pos = _skip(text, 0)
    end = len(text)
    while True:
        if pos >= end:
            raise _Syntax
        char = text[pos]
        value: JsonValue
        if char == "{":
            pos = _skip(text, pos + 1)
            container: dict[str, JsonValue] = {}
            if pos < end and text[pos] == "}":
                value = container
                pos += 1
            else:
                key, pos = _string_at(text, pos)
                pos = _skip(text, pos)
                if pos >= end or text[pos] != ":":
                    raise _Syntax
                pos = _skip(text, pos + 1)
                stack.append((container, key))
                continue
        elif char == "[":
            pos = _skip(text, pos + 1)
            array: list[JsonValue] = []
            if pos < end and text[pos] == "]":
                value = array
                pos += 1
            else:
                stack.append((array, None))
                continue
        elif char == '"':
            value, pos = _string_at(text, pos)
        elif char == "-" or "0" <= char <= "9":
            value, pos = _number_at(text, pos)
        else:
            for literal, literal_value in _LITERALS.items():
                if text.startswith(literal, pos):
                    value = literal_value
                    pos += len(literal)
                    break
            else:
                raise _Syntax
        # Attach the completed value, closing every container it completes.
        while True:
            if not stack:
                root = value
                pos = _skip(text, pos)
                if pos != end:
                    raise _Syntax
                return root, duplicate
            parent, pending_key = stack[-1]
            if isinstance(parent, dict):
                if pending_key in parent:
                    duplicate = True
                parent[pending_key or ""] = value
            else:
                parent.append(value)
            pos = _skip(text, pos)
            if pos >= end:
                raise _Syntax
            char = text[pos]
            if char == ",":
                pos = _skip(text, pos + 1)
                if isinstance(parent, dict):
                    key, pos = _string_at(text, pos)
                    pos = _skip(text, pos)
                    if pos >= end or text[pos] != ":":
                        raise _Syntax
                    pos = _skip(text, pos + 1)
                    stack[-1] = (parent, key)
                break
            if (char == "}" and isinstance(parent, dict)) or (
                char == "]" and isinstance(parent, list)
            ):
                stack.pop()
                value = parent
                pos += 1
                continue
            raise _Syntax
