"""Line, number, key-order, depth and timestamp rules of the parser (FMT-3..9, D-1..D-3)."""

from __future__ import annotations

import dataclasses
import hashlib
import io

import orjson
import pytest
from cassette_canonical import JsonValue, canonical_json
from cassette_format import (
    InteractionBody,
    ResultOutcome,
    interaction_line,
    parse_cassette,
    seal_interaction,
    verify_stream,
)
from cassette_format.records.frozen_json import freeze_object
from returns.result import Failure, Success

from format.builders import make_body, make_header

HEADER = make_header()
HEADER_LINE = canonical_json(HEADER.to_json()).unwrap().encode() + b"\n"


def _line(body: InteractionBody, previous: str) -> tuple[bytes, str]:
    sealed = seal_interaction(body, previous).unwrap()
    return interaction_line(sealed).unwrap(), sealed.hash


def _cassette(*bodies: InteractionBody) -> bytes:
    out, previous = [HEADER_LINE], HEADER.hash
    for body in bodies:
        line, previous = _line(body, previous)
        out.append(line)
    return b"".join(out)


def _message(data: bytes | str) -> str:
    result = parse_cassette(data)
    assert isinstance(result, Failure)
    message: str = result.failure().message
    return message


def test_empty_and_blank_files() -> None:  # FMT-3
    assert _message(b"") == "cassette is empty"
    assert _message(" \t\r\n\u3000\ufeff\n".encode()) == "cassette is empty"


def test_js_trim_set_decides_blank_lines() -> None:  # FMT-3
    data = _cassette(make_body(1))
    blank = "\u00a0\u2028\u000b\n".encode()
    assert isinstance(parse_cassette(blank + data + blank), Success)
    # U+0085 and U+001C are not JS whitespace: the line counts and is not JSON.
    assert _message(data + "\u0085\n".encode()) == "line 3 is not valid JSON"
    assert _message(b"\x1c\n" + data) == "line 1 is not valid JSON"


def test_lines_are_numbered_by_non_blank_line() -> None:  # FMT-3, GAP-18
    data = HEADER_LINE + b"\n\n   \n{}\n"
    assert _message(data) == "line 2 is not a cassette interaction"


def test_crlf_and_lone_cr() -> None:  # FMT-3
    data = _cassette(make_body(1), make_body(2))
    assert isinstance(parse_cassette(data.replace(b"\n", b"\r\n")), Success)
    merged = data.replace(b"\n", b"\r", 1)
    assert _message(merged) == "line 1 is not valid JSON"


def test_invalid_utf8_names_the_line() -> None:  # D-2
    data = _cassette(make_body(1))
    broken = data.replace(b"answer", b"answ\xffr", 1)
    assert _message(broken) == "line 2 is not valid UTF-8"


def test_duplicate_member_after_escape_decoding() -> None:  # FMT-5
    line = HEADER_LINE.replace(b'"kind":', b'"k\\u0069nd":"x","kind":', 1)
    assert _message(line) == "line 1 contains a duplicate JSON object member"
    # A syntax error later on the line wins over the duplicate.
    assert _message(line.rstrip(b"\n") + b",\n") == "line 1 is not valid JSON"


def test_first_unknown_key_in_js_property_order() -> None:  # FMT-6
    document = orjson.loads(HEADER_LINE)
    document["zeta"] = 1
    document["10"] = 1
    document["2"] = 1
    data = orjson.dumps(document)
    assert _message(data) == "header.2 is not supported"


@pytest.mark.parametrize(
    ("created_at", "valid"),
    [
        ("2026-08-18T03:00:00.123Z", True),
        ("2026-08-18T03:00:00+02:00", True),
        ("2026-08-18", True),
        ("2026-02-30", False),
        ("1", False),
        ("August 18, 2026", False),
        ("2026-08-18T03:00:00", False),
    ],
)
def test_created_at_is_iso(created_at: str, valid: bool) -> None:  # D-3, FMT-9
    document = HEADER.body_json()
    document["createdAt"] = created_at
    document["hash"] = (
        "sha256:" + hashlib.sha256(canonical_json(document).unwrap().encode()).hexdigest()
    )
    result = parse_cassette(orjson.dumps(document))
    if valid:
        assert isinstance(result, Success)
    else:
        assert _message(orjson.dumps(document)) == "header.createdAt must be an ISO timestamp"


def test_noncanonical_numbers_hash_as_doubles() -> None:  # FMT-4, D-1
    body = make_body(1)
    line, _ = _line(body, HEADER.hash)
    relaid = line.replace(b'"sequence":1', b'"sequence":1.0e0', 1).replace(b",", b" , ", 3)
    result = parse_cassette(HEADER_LINE + relaid)
    assert isinstance(result, Success)
    assert result.unwrap().interactions[0].sequence == 1


def test_negative_zero_is_not_lossless() -> None:  # FMT-7, D-1
    line, _ = _line(make_body(1), HEADER.hash)
    tampered = line.replace(b'"startLatencyMs":1.5', b'"startLatencyMs":-0', 1)
    assert _message(HEADER_LINE + tampered) == "cassette record is not lossless canonical JSON"


def test_twenty_thousand_nested_tool_results_pass() -> None:  # CANON-9, FMT-14
    nested: dict[str, JsonValue] = {"type": "text", "text": "leaf"}
    for depth in range(20_000):
        nested = {"type": "tool-result", "toolCallId": f"c{depth}", "content": [nested]}
    result = freeze_object({"output": [nested], "stopReason": "completed"})
    outcome = ResultOutcome(result=result, redactions=0)
    base = make_body(1)
    body = dataclasses.replace(base, outcome=outcome)
    data = _cassette(body)
    assert isinstance(parse_cassette(data), Success)
    assert isinstance(verify_stream(io.BytesIO(data)), Success)
    broken = data.replace(b'"text":"leaf"', b'"text":7', 1)
    expected = (
        "line 2.outcome.result.output nested content at depth 20000, index 0.text must be a string"
    )
    assert _message(broken) == expected


def test_error_locations() -> None:  # ERR-1, FMT-9
    document = orjson.loads(HEADER_LINE)
    document["comment"] = "x"
    header_error = parse_cassette(orjson.dumps(document)).failure()
    assert (header_error.message, header_error.line) == ("header.comment is not supported", 1)
    empty = parse_cassette(b"").failure()
    assert (empty.message, empty.line) == ("cassette is empty", None)
    line, _ = _line(make_body(1), HEADER.hash)
    bad = parse_cassette(HEADER_LINE + line.replace(b'"sequence":1', b'"sequence":0')).failure()
    assert (bad.message, bad.line, bad.path) == (
        "line 2.sequence must be a positive safe integer",
        2,
        "line 2.sequence",
    )
