"""One non-blank line to a JSON record, and its hash check, by the fast or the strict path.

Fast path: a line a canonical writer produced is canonical JSON. If orjson re-serializes
its parse (sorted keys) to the very same bytes and the line holds none of the constructs
where orjson's output differs from JavaScript canonical text (UTF-16 key order, numbers
>= 1e16 or with exponents, integral floats, ints above 2^53), the line had no duplicate
members, no layout slack and canonical numbers; its hash is then SHA-256 of the line with
the top-level `"hash":"sha256:…",` member cut out, since the body's canonical text is the
line minus that member. Every other line takes the strict parser and canonical_json.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

import orjson

from cassette_format.errors import CassetteFormatError

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["ParsedLine", "decode_line", "parse_record", "record_hash"]

# Where orjson's number text differs from JavaScript's: exponents +16..+20 (orjson writes
# `1e+16` where JS writes 10000000000000000; from e+21 on both agree), exponent -6
# (`1e-6` for JS `0.000001`), integral floats (`100.0`, `-0.0`); ints beyond 2^53 (D-1)
# make orjson's OPT_STRICT_INTEGER refuse to serialize. Matches inside strings only cost
# a trip through the strict path.
_INTEGRAL_FLOAT = re.compile(rb"\.0[,}\]]")
# Searched as `-6` plus a delimiter, then checked for the `e` before it: `e` is so common
# in text that a search starting from it costs twice as much.
_MINUS_SIX = re.compile(rb"-6[,}\]]")
_EXPONENT_PLAIN_IN_JS = re.compile(rb"e\+(?:1[6-9]|20)[,}\]]")
# Supplementary characters (lead bytes F0-F4) next to U+E000-U+FFFF (EE, EF): UTF-16 and
# code-point key orders differ only when both occur.
_ASTRAL_LEADS = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
_HASH_MEMBER = b'"hash":"sha256:'
_STRICT = orjson.OPT_STRICT_INTEGER
_SORT = orjson.OPT_SORT_KEYS | _STRICT


class ParsedLine:
    """A parsed record and, when the line is canonical JSON, its raw bytes."""

    __slots__ = ("canonical", "value")

    def __init__(self, value: JsonValue, canonical: bytes | None) -> None:
        self.value = value
        self.canonical = canonical


def decode_line(raw: bytes, line: int) -> str | CassetteFormatError:
    """Strict UTF-8 (D-2): invalid bytes are a format error naming the line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return CassetteFormatError(f"line {line} is not valid UTF-8", line=line)


def _utf16_ordered(value: object) -> object:
    """A copy whose dicts insert keys in UTF-16 code-unit order (CANON-3), iteratively."""
    root: list[object] = [None]
    pending: list[tuple[object, list[object] | dict[str, object], int | str]] = [(value, root, 0)]
    while pending:
        item, parent, slot = pending.pop()
        copy: object = item
        if type(item) is dict:
            ordered: dict[str, object] = {}
            for key in sorted(item, key=_utf16_key):
                ordered[key] = None
                pending.append((item[key], ordered, key))
            copy = ordered
        elif type(item) is list:
            items: list[object] = [None] * len(item)
            pending.extend((element, items, i) for i, element in enumerate(item))
            copy = items
        if isinstance(parent, dict) and isinstance(slot, str):  # noqa: SIM114 - two narrowings
            parent[slot] = copy
        elif isinstance(parent, list) and isinstance(slot, int):
            parent[slot] = copy
    return root[0]


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _is_fast_canonical(raw: bytes, value: object) -> bool:
    # Only a supplementary character beside one in U+E000-U+FFFF can order keys differently
    # in UTF-16 units than orjson's code-point sort; then the keys are ordered explicitly.
    mixed = (b"\xee" in raw or b"\xef" in raw) and any(lead in raw for lead in _ASTRAL_LEADS)
    try:
        text = (
            orjson.dumps(_utf16_ordered(value), option=_STRICT)
            if mixed
            else orjson.dumps(value, option=_SORT)
        )
    except orjson.JSONEncodeError:
        return False
    if text != raw:
        return False
    if b"+" in raw and _EXPONENT_PLAIN_IN_JS.search(raw):
        return False
    return _INTEGRAL_FLOAT.search(raw) is None and not _has_exponent_minus_six(raw)


def _has_exponent_minus_six(raw: bytes) -> bool:
    hit = _MINUS_SIX.search(raw)
    while hit is not None:
        if raw[hit.start() - 1 : hit.start()] == b"e":
            return True
        hit = _MINUS_SIX.search(raw, hit.end() - 1)
    return False


def parse_record(
    raw: bytes | None, text: str | None, line: int
) -> ParsedLine | CassetteFormatError:
    """Parse one line (bytes when it came from a file, text when given as str).

    FMT-4/5: the parsed record, or the line's problem as a value (no exception escapes).
    """
    if raw is not None:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = _MISSING
        if value is not _MISSING and _is_fast_canonical(raw, value):
            return ParsedLine(value, raw)
        if text is None:
            decoded = decode_line(raw, line)
            if isinstance(decoded, CassetteFormatError):
                return decoded
            text = decoded
    if text is None:
        return CassetteFormatError(f"line {line} is not valid JSON", line=line)
    from cassette_format._strict_json import parse_line  # lazy: non-canonical lines only

    parsed = parse_line(text, line)
    if isinstance(parsed, CassetteFormatError):
        return parsed
    return ParsedLine(parsed, None)


_MISSING = object()


def _fingerprint_without_hash(value: Mapping[str, JsonValue]) -> str | None:
    body = {key: item for key, item in value.items() if key != "hash"}
    from cassette_canonical import canonical_json  # lazy: only non-canonical lines need it

    text: str | None = canonical_json(body).value_or(None)
    if text is None:
        return None
    encoded = text.encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def record_hash(parsed: ParsedLine, record: Mapping[str, JsonValue]) -> str | None:
    """The digest of the record without `hash` (FMT-9 rule 18, FMT-10 rule 10).

    None when that record has no lossless canonical JSON text.
    """
    raw = parsed.canonical
    if raw is not None:
        start = raw.find(_HASH_MEMBER)
        stop = start + len(_HASH_MEMBER) + 64 + 2  # digest, closing quote, comma
        stored = record.get("hash")
        if not isinstance(stored, str) or raw[start + 8 : stop - 2] != stored.encode("ascii"):
            return _fingerprint_without_hash(record)
        if start > 0 and raw[stop - 2 : stop] == b'",' and raw[start - 1 : start] == b",":
            view = memoryview(raw)
            digest = hashlib.sha256(view[:start])
            digest.update(view[stop:])
            return "sha256:" + digest.hexdigest()
        if start > 0 and raw[stop - 2 : stop] == b'"}':
            return "sha256:" + hashlib.sha256(raw[: start - 1] + b"}").hexdigest()
    return _fingerprint_without_hash(record)
