"""The reference's own canonical outputs, the JCS vectors and the CANON-10 vectors."""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
from cassette_canonical import canonical_json, fingerprint, number_text, parse_json
from returns.result import Failure, Success
from support.paths import INTEROP, JCS_VECTORS

VALUES = INTEROP / "canonical" / "values.jsonl"
NUMBERS = INTEROP / "canonical" / "numbers.txt"


def _records() -> list[dict[str, Any]]:
    with VALUES.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def test_values_corpus_matches_reference() -> None:
    # CANON-1..CANON-10: every accepted record gives the reference text and digest,
    # every rejected one a Failure.
    records = _records()
    assert len(records) > 2000
    mismatches: list[str] = []
    for record in records:
        value = parse_json(record["input"])
        result = value.bind(canonical_json)
        digest = value.bind(fingerprint)
        if "error" in record:
            if not isinstance(result, Failure) or not isinstance(digest, Failure):
                mismatches.append(record["id"])
        elif result != Success(record["canonical"]) or digest != Success(record["fingerprint"]):
            mismatches.append(record["id"])
    assert mismatches == []


def test_values_corpus_covers_every_tag() -> None:
    tags = {tag for record in _records() for tag in record["tags"]}
    assert {"edge", "deep", "float-bits", "inexact-integer-token", "rejected"} <= tags


def test_numbers_corpus_matches_reference() -> None:
    # CANON-5, CANON-6: JavaScript String(x) for 20,000 doubles; '!' lines are rejected.
    mismatches: list[str] = []
    lines = NUMBERS.read_text(encoding="ascii").splitlines()
    assert len(lines) > 20000
    for line in lines:
        bits, expected = line.split(" ", 1)
        (double,) = struct.unpack(">d", bytes.fromhex(bits))
        got = number_text(double)
        if expected.startswith("!"):
            if not isinstance(got, Failure):
                mismatches.append(bits)
        elif got != Success(expected):
            mismatches.append(bits)
    assert mismatches == []


@pytest.mark.parametrize("name", sorted(p.name for p in (JCS_VECTORS / "input").iterdir()), ids=str)
def test_jcs_vector(name: str) -> None:
    source = (JCS_VECTORS / "input" / name).read_bytes()
    expected = (JCS_VECTORS / "output" / name).read_bytes()
    text = parse_json(source).bind(canonical_json)
    assert text.map(lambda t: t.encode("utf-8")) == Success(expected)


def test_canon10_vector_text() -> None:
    # CANON-10: raw U+2028 and an escaped lone high surrogate.
    source = '{"a":[1.5,-2,1e+21,1e-7,0.000001,"x\u2028\\ud800"],"b":1,"é":false,"𐀀":true,"￿":null}'
    expected = (
        '{"a":[1.5,-2,1e+21,1e-7,0.000001,"x\u2028\\ud800"],"b":1,"é":false,"𐀀":true,"￿":null}'
    )
    value = parse_json(source)
    assert value.bind(canonical_json) == Success(expected)
    shuffled = parse_json(
        '{"￿":null,"𐀀":true,"é":false,"b":1,"a":' + source[5 : source.index("]") + 1] + "}"
    )
    assert shuffled.bind(canonical_json) == Success(expected)


@pytest.mark.parametrize(
    ("value", "digest"),
    [
        ({}, "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
        (None, "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"),
        # NORM-4 and NORM-11 vectors exercise nesting and key order.
        (
            {"label": "audit", "prompt": [{"text": "prompt:audit", "type": "text"}]},
            "sha256:314d2395805a9d5aafebf28cef1e2cc0e455d7d77db2c2098dbd39f2d559005f",
        ),
        (
            {"kind": "dsh-subagent/parent-context", "value": {"options": {}, "session": {}}},
            "sha256:071170d5f14968667bb3029474bcc3e3488ac58bed1a4ae90ec08669c43db6ed",
        ),
        (
            {
                "kind": "dsh-subagent/parent-context",
                "value": {"options": {}, "session": {}, "inheritedMessages": []},
            },
            "sha256:58c0f783a4e39958070178fdac040de764fe6ce429d1ec041b6e027707687f34",
        ),
    ],
)
def test_digest_vectors(value: object, digest: str) -> None:
    # CANON-8, CANON-10, NORM-4, NORM-11
    assert fingerprint(value) == Success(digest)
