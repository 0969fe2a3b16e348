"""A canonical line's record hash: SHA-256 of the line without its own `hash` member.

FMT-9 rule 18 and FMT-10 rule 10 hash a record's canonical text without `hash`. For a
canonical line the reader cuts the first `"hash":"sha256:…"` member out of the line and
hashes the rest; that digest counts only when it equals the one the record holds, and any
other case takes the exact path (`fingerprint`), so another object's `hash` member found
first, a `hash` member written last and a wrong digest all give the exact answer.
"""

from __future__ import annotations

from cassette_canonical import JsonValue, canonical_json, fingerprint
from cassette_format.read.record_line import ParsedLine, parse_record, record_hash

_OTHER = "sha256:" + "1" * 64


def _parsed(record: dict[str, JsonValue]) -> ParsedLine:
    """The canonical line of `record`, parsed by the reader's fast path."""
    line = canonical_json(record).unwrap().encode("utf-8")
    parsed = parse_record(line, None, 1)
    assert isinstance(parsed, ParsedLine)
    assert parsed.canonical == line  # canonical: the digest comes from the line's bytes
    return parsed


def test_the_member_cut_out_is_the_records_own_after_another_hash_member() -> None:
    # FMT-10
    body: dict[str, JsonValue] = {"a": {"hash": _OTHER, "x": 1}, "z": 2}
    digest = fingerprint(body).unwrap()
    parsed = _parsed({**body, "hash": digest})
    line = parsed.canonical or b""
    assert line.find(b'"hash":"sha256:') < line.find(digest.encode())  # the other one first
    assert record_hash(parsed, parsed.value) == digest  # type: ignore[arg-type]


def test_a_last_hash_member_and_a_wrong_digest_give_the_exact_digest() -> None:
    # FMT-9
    body: dict[str, JsonValue] = {"a": [1, "two"]}
    digest = fingerprint(body).unwrap()
    last = _parsed({**body, "hash": digest})  # `hash` sorts after `a`: the line ends `"}`
    assert (last.canonical or b"").endswith(digest.encode() + b'"}')
    assert record_hash(last, last.value) == digest  # type: ignore[arg-type]
    wrong = _parsed({**body, "b": 3, "hash": _OTHER})
    assert record_hash(wrong, wrong.value) == fingerprint({**body, "b": 3}).unwrap()  # type: ignore[arg-type]
