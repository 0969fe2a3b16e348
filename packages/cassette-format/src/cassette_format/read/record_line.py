"""One non-blank line to a JSON record, and its hash check, by the fast or the strict path.

Fast path: a line a canonical writer produced is canonical JSON. If orjson re-serializes
its parse (sorted keys) to the very same bytes and the line holds none of the constructs
where orjson's output differs from JavaScript canonical text (UTF-16 key order, numbers
>= 1e16 or with exponents, integral floats, ints above 2^53), the line had no duplicate
members, no layout slack and canonical numbers; its hash is then SHA-256 of the line with
the top-level `"hash":"sha256:…",` member cut out, since the body's canonical text is the
line minus that member. Every other line takes canonical's JSON.parse (`parse_js_json`)
and `fingerprint`; the fast-path check itself is canonical's `is_canonical_text`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

import orjson
from cassette_canonical import is_canonical_text

from cassette_format.problem import FormatProblem
from cassette_format.records.model import HASH

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["HASH_MEMBER", "ParsedLine", "decode_line", "line_hash", "parse_record", "record_hash"]

#: How a canonical line's top-level `hash` member starts (the reader cuts it out to hash the
#: rest; the sealer writes the digest after it).
HASH_MEMBER = b'"' + HASH.encode("ascii") + b'":"sha256:'
#: The member's length with its 64 hex digits, closing quote and the comma (or brace) after it.
_MEMBER_BYTES: Final = len(HASH_MEMBER) + 64 + 2
_COMMA: Final = ord(",")


class ParsedLine:
    """A parsed record and, when the line is canonical JSON, its raw bytes."""

    __slots__ = ("canonical", "value")

    def __init__(self, value: JsonValue, canonical: bytes | None) -> None:
        self.value = value
        self.canonical = canonical


def decode_line(raw: bytes, line: int) -> str | FormatProblem:
    """Strict UTF-8 (D-2): invalid bytes are a format error naming the line."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return FormatProblem(f"line {line} is not valid UTF-8", line=line)


def parse_record(raw: bytes | None, text: str | None, line: int) -> ParsedLine | FormatProblem:
    """Parse one line (bytes when it came from a file, text when given as str).

    FMT-4/5: the parsed record, or the line's problem as a value (no exception escapes).
    """
    if raw is not None:
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            value = _MISSING
        if value is not _MISSING and is_canonical_text(raw, value):
            return ParsedLine(value, raw)
        if text is None:
            decoded = decode_line(raw, line)
            if isinstance(decoded, FormatProblem):
                return decoded
            text = decoded
    if text is None:
        return FormatProblem(f"line {line} is not valid JSON", line=line)
    return _strict_record(text, line)


def _strict_record(text: str, line: int) -> ParsedLine | FormatProblem:
    """JSON.parse of a line the fast path cannot vouch for; a problem in the reference's words."""
    from cassette_canonical import parse_js_json  # lazy: non-canonical lines only
    from cassette_canonical.errors import JSON_DUPLICATE_MEMBER
    from returns.result import Failure, Success

    match parse_js_json(text):
        case Success(value):
            return ParsedLine(value, None)
        case Failure(problem) if problem.code == JSON_DUPLICATE_MEMBER:
            return FormatProblem(f"line {line} contains a duplicate JSON object member", line=line)
        case _:
            return FormatProblem(f"line {line} is not valid JSON", line=line)


_MISSING = object()


def _fingerprint_without_hash(value: Mapping[str, JsonValue]) -> str | None:
    """CANON-8 fingerprint of the record minus its `hash` member, None when it has none."""
    from cassette_canonical import fingerprint  # lazy: only non-canonical lines need it

    body = {key: item for key, item in value.items() if key != HASH}
    digest: str | None = fingerprint(body).value_or(None)
    return digest


def line_hash(raw: bytes, stored: str) -> str | None:
    """`stored` when it is the digest of the line's text without its `hash` member, else None.

    The sealer writes `"hash":"<stored>"` between members (or last); the first such member
    is cut out byte-wise and the rest hashed. Had that member been another object's, the
    record's own digest would be among the bytes hashed, and no SHA-256 digest occurs in its
    own input, so a match also proves the member cut was the record's. Only a canonical
    line's cut text is its body's canonical text.
    """
    start = raw.find(HASH_MEMBER)
    stop = start + _MEMBER_BYTES
    end = raw[stop - 2 : stop]
    if start > 0 and end == b'",' and raw[start - 1] == _COMMA:
        digest = "sha256:" + hashlib.sha256(raw[:start] + raw[stop:]).hexdigest()
    elif start > 0 and end == b'"}':
        digest = "sha256:" + hashlib.sha256(raw[: start - 1] + b"}").hexdigest()
    else:
        return None
    return digest if digest == stored else None


def record_hash(parsed: ParsedLine, record: Mapping[str, JsonValue]) -> str | None:
    """The digest of the record without `hash` (FMT-9 rule 18, FMT-10 rule 10).

    None when that record has no lossless canonical JSON text. A canonical line holding its
    own digest is answered by `line_hash`; any other by the exact path (`fingerprint`).
    """
    raw, stored = parsed.canonical, record.get(HASH)
    if raw is not None and type(stored) is str:
        digest = line_hash(raw, stored)
        if digest is not None:
            return digest
    return _fingerprint_without_hash(record)
