"""Strict RFC 8259 JSON text to Python values, with located errors, in two number modes.

``parse_json`` holds numbers to D-1 (negative zero and overflow are errors);
``parse_js_json`` reads them as the reference's ``JSON.parse`` does (``-0`` stays -0.0,
overflow becomes an infinity) and still flags duplicate members (FMT-4/5). The C ``json``
decoder does the common case; whenever it refuses (syntax, depth, a duplicate member, a
lossy number, raw surrogates in the text) the exact iterative parser below runs and gives
the definitive answer, so both paths accept exactly the same texts.
"""

from __future__ import annotations

import json
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from json import decoder
from typing import Final

from returns.result import Failure, Result, Success

from cassette_canonical.errors import (
    JSON_BOM,
    JSON_DUPLICATE_MEMBER,
    JSON_INVALID_UTF8,
    JSON_NUMBER_NOT_LOSSLESS,
    JSON_SYNTAX,
    NOT_JSON_VALUE,
    CanonicalError,
)
from cassette_canonical.json_path import json_path
from cassette_canonical.json_value import JsonValue
from cassette_canonical.limits import C_RECURSION_SAFE
from cassette_canonical.strings import has_surrogate, join_surrogate_pairs

#: json.decoder's string scanner (C when present): public, unlike `_json`; typeshed omits it.
scanstring: Final[Callable[[str, int, bool], tuple[str, int]]] = vars(decoder)["scanstring"]

_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS: Final[dict[str, JsonValue]] = {"true": True, "false": False, "null": None}
_BOM_MESSAGE: Final = "JSON text starts with a byte order mark"
_SAFE_INT_TOKEN_LEN: Final = 15  # 15 digits never exceed 2**53, so int(token) is the double


_STRING_PROBLEMS: Final = (
    ("invalid control character", "raw control character in a string"),
    ("unterminated string", "unterminated string"),
    ("invalid \\uxxxx", "invalid \\u escape in a string"),
    ("invalid \\escape", "invalid escape in a string"),
)


class _Refused(ValueError):
    """Raised inside the C decoder's hooks to hand the text to the exact parser."""


def int_token(token: str) -> int | None:
    """The exact value of the double nearest an integer token, or None for ``-0``/overflow."""
    if len(token) <= _SAFE_INT_TOKEN_LEN:
        return None if token == "-0" else int(token)
    double = float(token)
    if math.isinf(double):
        return None
    return int(double)


def float_token(token: str) -> float | None:
    """The double nearest a fraction/exponent token, or None for negative zero/overflow."""
    double = float(token)
    if math.isinf(double) or (double == 0.0 and token[0] == "-"):
        return None
    return double


def js_int_token(token: str) -> int | float:
    """JSON.parse's value of an integer token: the double's exact int, or -0.0 / an infinity."""
    value = int_token(token)
    return float(token) if value is None else value


@dataclass(frozen=True, slots=True)
class NumberMode:
    """How number tokens become values; None means the token is not lossless (D-1)."""

    integer: Callable[[str], int | float | None]
    fraction: Callable[[str], float | None]


#: D-1: a token must denote a double exactly as canonical JSON can write it back.
LOSSLESS: Final = NumberMode(int_token, float_token)
#: The reference's JSON.parse: every token is the nearest double, -0 and infinities included.
JS_NUMBERS: Final = NumberMode(js_int_token, float)


def _refusing(read: Callable[[str], int | float | None]) -> Callable[[str], int | float]:
    """A C-decoder number hook that hands a lossy token to the exact parser."""

    def hook(token: str) -> int | float:
        value = read(token)
        if value is None:
            raise _Refused(token)
        return value

    return hook


def _hook_constant(token: str) -> object:
    """C-decoder hook: NaN and Infinity are not JSON."""
    raise _Refused(token)


def _hook_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    """C-decoder hook: build an object, refusing duplicate names."""
    members = dict(pairs)
    if len(members) != len(pairs):
        raise _Refused("duplicate")
    return members


def _decoder(numbers: NumberMode) -> json.JSONDecoder:
    """The C decoder with hooks that refuse everything the exact parser must judge."""
    return json.JSONDecoder(
        parse_int=_refusing(numbers.integer),
        parse_float=_refusing(numbers.fraction),
        parse_constant=_hook_constant,
        object_pairs_hook=_hook_object,
        strict=True,
    )


_LOSSLESS_DECODER: Final = _decoder(LOSSLESS)
_JS_DECODER: Final = _decoder(JS_NUMBERS)


def parse_json(text: str | bytes | bytearray | memoryview) -> Result[JsonValue, CanonicalError]:
    """Parse strict JSON (no duplicates, NaN, BOM or trailing data; strict UTF-8 for bytes)."""
    if isinstance(text, bytes | bytearray | memoryview):
        decoded = _decode_utf8(bytes(text))
        if isinstance(decoded, CanonicalError):
            return Failure(decoded)
        text = decoded
    elif not isinstance(text, str):
        kind = type(text).__name__  # type: ignore[unreachable]  # untyped callers
        return Failure(CanonicalError(NOT_JSON_VALUE, f"cannot parse JSON from {kind}"))
    return _parse_text(text, LOSSLESS, _LOSSLESS_DECODER)


def parse_js_json(text: str) -> Result[JsonValue, CanonicalError]:
    """Parse as the reference's JSON.parse (FMT-4), also refusing duplicate members (FMT-5).

    Numbers are the nearest doubles (``-0`` is -0.0, overflow an infinity, D-1 judges them
    later); a syntax error anywhere wins over a duplicate member, as in the reference.
    """
    return _parse_text(text, JS_NUMBERS, _JS_DECODER)


def _parse_text(
    text: str, numbers: NumberMode, fast: json.JSONDecoder
) -> Result[JsonValue, CanonicalError]:
    """The C decoder (built for ``numbers``) when it vouches for the text, else the exact one."""
    if text.startswith("\ufeff"):
        return Failure(CanonicalError(JSON_BOM, _BOM_MESSAGE, None, 1, 1))
    if not has_surrogate(text) and sys.getrecursionlimit() <= C_RECURSION_SAFE:
        try:
            value: JsonValue = fast.decode(text)
        except (ValueError, RecursionError):
            pass
        else:
            return Success(value)
    return parse_exact(text, numbers)


def _decode_utf8(data: bytes) -> str | CanonicalError:
    """Strict UTF-8 decoding; the error names where the first invalid byte sits."""
    if data.startswith(b"\xef\xbb\xbf"):
        return CanonicalError(JSON_BOM, _BOM_MESSAGE, None, 1, 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode("utf-8")
        line, column = _line_column(prefix, len(prefix))
        return CanonicalError(
            JSON_INVALID_UTF8, f"invalid UTF-8 at byte offset {error.start}", None, line, column
        )


def _skip(text: str, pos: int) -> int:
    """Position after the JSON whitespace (space, tab, LF, CR) starting at ``pos``."""
    match = _WHITESPACE.match(text, pos)
    return pos if match is None else match.end()


def _line_column(text: str, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a position; lines end at LF."""
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return line, column


class _Syntax(Exception):
    """A syntax error at a text position (internal control flow of the exact parser)."""

    def __init__(self, message: str, pos: int, *, in_container: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.in_container = in_container  # located at the open container, not a member value


Container = dict[str, JsonValue] | list[JsonValue]


def parse_exact(text: str, numbers: NumberMode = LOSSLESS) -> Result[JsonValue, CanonicalError]:
    """The iterative strict parser: definitive verdicts and locations for every text."""
    containers: list[Container] = []
    keys: list[str] = []  # pending member name per open container ("" for arrays)
    deferred: list[CanonicalError] = []  # first duplicate / lossy number; syntax wins over it
    state = (containers, keys, deferred)
    join_pairs = has_surrogate(text)
    end = len(text)
    pos = 0
    try:
        while True:
            pos = _skip(text, pos)
            char = text[pos : pos + 1]
            value: JsonValue
            if char == '"':
                value, pos = _string(text, pos, join_pairs)
            elif char in {"{", "["}:
                pos = _skip(text, pos + 1)
                closer = "}" if char == "{" else "]"
                if text[pos : pos + 1] == closer:
                    value = {} if char == "{" else []
                    pos += 1
                elif char == "{":
                    members: dict[str, JsonValue] = {}
                    containers.append(members)
                    key, pos = _member_name(text, pos, join_pairs)
                    keys.append(key)
                    continue
                else:
                    containers.append([])
                    keys.append("")
                    continue
            elif char and char in "-0123456789":
                value, pos = _number(text, pos, numbers, state)
            else:
                value, pos = _literal(text, pos)
            while True:
                if not containers:
                    pos = _skip(text, pos)
                    if pos != end:
                        raise _Syntax("unexpected data after the JSON value", pos)
                    if deferred:
                        return Failure(deferred[0])
                    return Success(value)
                top = containers[-1]
                if isinstance(top, list):
                    top.append(value)
                else:
                    top[keys[-1]] = value
                pos = _skip(text, pos)
                char = text[pos : pos + 1]
                if char == ",":
                    pos += 1
                    if isinstance(top, dict):
                        pos = _skip(text, pos)
                        key_pos = pos
                        key, pos = _member_name(text, pos, join_pairs)
                        if key in top and not deferred:
                            deferred.append(_duplicate(text, key_pos, containers, keys))
                        keys[-1] = key
                    break
                if char == ("]" if isinstance(top, list) else "}"):
                    pos += 1
                    value = containers.pop()
                    keys.pop()
                    continue
                expected = "']'" if isinstance(top, list) else "'}'"
                raise _Syntax(f"expected ',' or {expected}", pos, in_container=True)
    except _Syntax as error:
        line, column = _line_column(text, error.pos)
        depth = len(containers) - 1 if error.in_container else len(containers)
        path = _path(containers[:depth], keys[:depth])
        return Failure(CanonicalError(JSON_SYNTAX, error.message, path, line, column))


def _string(text: str, pos: int, join_pairs: bool) -> tuple[str, int]:
    """Decode the string literal starting at the quote at ``pos``."""
    try:
        value, pos = scanstring(text, pos + 1, True)
    except json.JSONDecodeError as error:
        raise _Syntax(_string_problem(error.msg), error.pos) from None
    return (join_surrogate_pairs(value) if join_pairs else value), pos


def _string_problem(message: str) -> str:
    """The C decoder's string complaint in our words (it never quotes input)."""
    lowered = message.lower()
    for prefix, ours in _STRING_PROBLEMS:
        if lowered.startswith(prefix):
            return ours
    return "invalid string literal"


def _member_name(text: str, pos: int, join_pairs: bool) -> tuple[str, int]:
    """Read ``"name" :`` at ``pos`` (whitespace before it already skipped)."""
    if text[pos : pos + 1] != '"':
        raise _Syntax("expected a double-quoted member name", pos, in_container=True)
    try:
        key, pos = _string(text, pos, join_pairs)
    except _Syntax as error:
        raise _Syntax(error.message, error.pos, in_container=True) from None
    pos = _skip(text, pos)
    if text[pos : pos + 1] != ":":
        raise _Syntax("expected ':' after the member name", pos, in_container=True)
    return key, pos + 1


def _number(
    text: str,
    pos: int,
    numbers: NumberMode,
    state: tuple[list[Container], list[str], list[CanonicalError]],
) -> tuple[JsonValue, int]:
    """Read a number token in the given mode; a lossy token is a deferred error."""
    match = _NUMBER.match(text, pos)
    if match is None:
        raise _Syntax("invalid number", pos)
    token = match.group()
    value: int | float | None
    if match.group(1) is None and match.group(2) is None:
        value = numbers.integer(token)
    else:
        value = numbers.fraction(token)
    containers, keys, deferred = state
    if value is None:
        if not deferred:
            line, column = _line_column(text, pos)
            deferred.append(
                CanonicalError(
                    JSON_NUMBER_NOT_LOSSLESS,
                    "number is negative zero or too large for a double",
                    _path(containers, keys),
                    line,
                    column,
                )
            )
        value = 0
    return value, match.end()


def _literal(text: str, pos: int) -> tuple[JsonValue, int]:
    """Read ``true``, ``false`` or ``null`` at ``pos``."""
    for word, value in _LITERALS.items():
        if text.startswith(word, pos):
            return value, pos + len(word)
    if pos >= len(text):
        raise _Syntax("unexpected end of JSON text, expected a value", pos)
    raise _Syntax("expected a JSON value", pos)


def _duplicate(text: str, pos: int, containers: list[Container], keys: list[str]) -> CanonicalError:
    """The error for a member name already present in its object (the name is not quoted)."""
    line, column = _line_column(text, pos)
    return CanonicalError(
        JSON_DUPLICATE_MEMBER,
        "object has a duplicate member name",
        _path(containers[:-1], keys[:-1]),
        line,
        column,
    )


def _path(containers: list[Container], keys: list[str]) -> str:
    """JSON path of the value being parsed inside the open containers."""
    steps: list[str | int] = []
    for container, key in zip(containers, keys, strict=True):
        steps.append(len(container) if isinstance(container, list) else key)
    return json_path(steps)
