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
from typing import TYPE_CHECKING, cast

import orjson
from cassette_canonical import canonical_json
from returns.result import Success

from cassette_format._reject import Reject
from cassette_format._strict_json import parse_line

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["ParsedLine", "decode_line", "parse_record", "record_hash"]

_LOSSY = "cassette record is not lossless canonical JSON"
# Numbers whose orjson text can differ from JS text, and ints beyond 2^53 (D-1).
_RISKY_NUMBER = re.compile(rb'(?:":|[,\[])-?(?:[0-9]{16}|[0-9]+(?:\.[0-9]+)?[eE]|[0-9]+\.0[,\]}])')
# A supplementary character and one in U+E000-U+FFFF: UTF-16 and code-point orders differ.
_ASTRAL = re.compile(rb"[\xf0-\xf4]")
_HIGH_BMP = re.compile(rb"[\xee\xef]")
_HASH_MEMBER = b'"hash":"sha256:'
_SORT = orjson.OPT_SORT_KEYS


class ParsedLine:
    """A parsed record and, when the line is canonical JSON, its raw bytes."""

    __slots__ = ("canonical", "value")

    def __init__(self, value: JsonValue, canonical: bytes | None) -> None:
        self.value = value
        self.canonical = canonical


def decode_line(raw: bytes, line: int) -> str:
    """Strict UTF-8 (D-2): invalid bytes are a format error naming the line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Reject(f"line {line} is not valid UTF-8", line=line) from error


def _is_fast_canonical(raw: bytes, value: object) -> bool:
    if orjson.dumps(value, option=_SORT) != raw:
        return False
    if _RISKY_NUMBER.search(raw) is not None:
        return False
    return not (_ASTRAL.search(raw) is not None and _HIGH_BMP.search(raw) is not None)


def parse_record(raw: bytes | None, text: str | None, line: int) -> ParsedLine:
    """Parse one line (bytes when it came from a file, text when given as str)."""
    if raw is not None:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = _MISSING
        if value is not _MISSING and _is_fast_canonical(raw, value):
            return ParsedLine(cast("JsonValue", value), raw)
        if text is None:
            text = decode_line(raw, line)
    if text is None:
        raise Reject(f"line {line} is not valid JSON", line=line)
    return ParsedLine(parse_line(text, line), None)


_MISSING = object()


def _fingerprint_without_hash(value: Mapping[str, JsonValue]) -> str:
    body = {key: item for key, item in value.items() if key != "hash"}
    text = canonical_json(body)
    if not isinstance(text, Success):
        raise Reject(_LOSSY)
    encoded = text.unwrap().encode("utf-8", "surrogatepass")
    return "sha256:" + hashlib.sha256(encoded).hexdigest()


def record_hash(parsed: ParsedLine, record: Mapping[str, JsonValue]) -> str:
    """The digest of the record without `hash` (FMT-9 rule 18, FMT-10 rule 10)."""
    raw = parsed.canonical
    if raw is not None:
        start = raw.find(_HASH_MEMBER)
        stop = start + len(_HASH_MEMBER) + 64 + 2  # digest, closing quote, comma
        stored = record.get("hash")
        if not isinstance(stored, str) or raw[start + 8 : stop - 2] != stored.encode("ascii"):
            return _fingerprint_without_hash(record)
        if start > 0 and raw[stop - 2 : stop] == b'",' and raw[start - 1 : start] == b",":
            return "sha256:" + hashlib.sha256(raw[:start] + raw[stop:]).hexdigest()
        if start > 0 and raw[stop - 2 : stop] == b'"}':
            return "sha256:" + hashlib.sha256(raw[: start - 1] + b"}").hexdigest()
    return _fingerprint_without_hash(record)
