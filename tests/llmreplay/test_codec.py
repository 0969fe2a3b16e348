"""Session-log codec: canonical hash-chained lines, closed records, located errors."""

from __future__ import annotations

import itertools
import json

import pytest
from cassette_canonical import JsonValue, canonical_json
from cassette_format.problem import FormatProblem
from cassette_format.sessions import (
    SESSION_LOG_FORMAT,
    RecordedCall,
    SessionLog,
    SessionLogHeader,
    encode_session_log,
    parse_session_log,
)
from hypothesis import given
from hypothesis import strategies as st
from llmreplay.builders import call, digest, log
from returns.result import Failure, Success


def _sample() -> SessionLog:
    fork = log(
        "child-7",
        "2026-08-18T03:00:01.000Z",
        [({"q": "seed"}, {"a": "parent answer"}), ({"q": "own"}, {"a": "child answer"})],
        parent="root-1",
        seed_calls=1,
    )
    streamed = call(3, {"q": "stream"}, {"d": "x"}, {"d": "y"}, {"d": ""})
    return SessionLog(fork.header, (*fork.calls, streamed))


def _text(session_log: SessionLog) -> str:
    return encode_session_log(session_log).unwrap()


def _error(data: str | bytes) -> FormatProblem:
    match parse_session_log(data):
        case Failure(error):
            found: FormatProblem = error
            return found
        case Success(parsed):
            raise AssertionError(f"expected a failure, parsed {parsed.header}")
    raise AssertionError("unreachable")


def test_round_trip_keeps_header_calls_and_chunks() -> None:
    sample = _sample()
    parsed = parse_session_log(_text(sample)).unwrap()
    assert parsed == sample
    assert parsed.header.seed_calls == 1
    assert parsed.calls[2].chunks == ({"d": "x"}, {"d": "y"}, {"d": ""})


def test_lines_are_canonical_and_hash_chained() -> None:
    lines = _text(_sample()).splitlines()
    records = [json.loads(line) for line in lines]
    assert records[0]["kind"] == "session-log/header"
    assert records[0]["format"] == "cassette-session-log"
    assert records[0]["version"] == 1
    for previous, record in itertools.pairwise(records):
        assert record["previousHash"] == previous["hash"]
    for line, record in zip(lines, records, strict=True):
        assert line == json.dumps(record, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
    kinds = [r["kind"].split("/")[1] for r in records[1:]]
    assert kinds == ["request", "chunk", "response"] * 2 + ["request"] + ["chunk"] * 3 + [
        "response"
    ]


def test_an_edited_chunk_is_detected() -> None:
    lines = _text(_sample()).splitlines()
    lines[5] = lines[5].replace("child answer", "child ANSWER")
    error = _error("\n".join(lines))
    assert error.code == SESSION_LOG_FORMAT
    assert error.line == 6
    assert "hash mismatch" in error.message


def test_a_dropped_line_breaks_the_chain() -> None:
    lines = _text(_sample()).splitlines()
    del lines[2]  # the first chunk of call 1
    error = _error("\n".join(lines))
    assert error.line == 3
    assert error.code == SESSION_LOG_FORMAT


def test_reordered_calls_fail() -> None:
    lines = _text(_sample()).splitlines()
    reordered = [lines[0], *lines[4:7], *lines[1:4], *lines[7:]]
    assert _error("\n".join(reordered)).line == 2


def test_a_truncated_log_with_an_open_call_fails() -> None:
    lines = _text(_sample()).splitlines()
    error = _error("\n".join(lines[:-1]))
    assert error.call_index == 3
    assert "no response" in error.message


def test_blank_lines_and_crlf_are_tolerated() -> None:
    text = _text(_sample()).replace("\n", "\r\n\n")
    assert parse_session_log(text).unwrap() == _sample()


def test_invalid_utf8_names_its_line() -> None:
    data = _text(_sample()).encode()
    first_break = data.index(b"\n")
    broken = data[: first_break + 5] + b"\xff" + data[first_break + 5 :]
    error = _error(broken)
    assert error.line == 2
    assert "UTF-8" in error.message


@pytest.mark.parametrize(
    ("header_change", "fragment"),
    [
        ({"kind": "cassette/header"}, "not a session-log header"),
        ({"format": "dsh-subagent-cassette"}, "header.format"),
        ({"version": 2}, "version"),
        ({"version": True}, "version"),
        ({"id": ""}, "header.id"),
        ({"createdAt": "August 18, 2026"}, "header.createdAt"),
        ({"createdAt": "2026-08-18T03:00:00"}, "header.createdAt"),  # no time zone
        ({"parentSession": 7}, "header.parentSession"),
        ({"seedCalls": -1}, "header.seedCalls"),
        ({"extra": 1}, "header.extra is not supported"),
    ],
)
def test_header_rules(header_change: dict[str, object], fragment: str) -> None:
    lines = _text(_sample()).splitlines()
    header = json.loads(lines[0])
    header.update(header_change)
    error = _error(canonical_json(header).unwrap() + "\n" + "\n".join(lines[1:]))
    assert error.line == 1
    assert fragment in error.message


def test_seed_boundary_requires_a_parent_and_enough_calls() -> None:
    orphan = SessionLog(SessionLogHeader("s", "2026-08-18", None, 0), ())
    assert "requires header.parentSession" in encode_session_log(orphan).failure().message
    beyond = SessionLog(SessionLogHeader("s", "2026-08-18", "p", 2), (call(1, {}, {}),))
    assert "beyond" in encode_session_log(beyond).failure().message


def test_request_fingerprint_must_match_the_request() -> None:
    forged_call = RecordedCall(1, {"q": 2}, digest({"q": 1}), True, ())
    forged = SessionLog(SessionLogHeader("s", "2026-08-18T00:00:00Z"), (forged_call,))
    error = encode_session_log(forged).failure()
    assert "requestFingerprint does not match" in error.message


def test_non_streamed_response_has_exactly_one_chunk() -> None:
    two = SessionLog(
        SessionLogHeader("s", "2026-08-18T00:00:00Z"),
        (call(1, {"q": 1}, {"a": 1}, {"a": 2}, streamed=False),),
    )
    assert "exactly one chunk" in encode_session_log(two).failure().message


def test_empty_log_fails() -> None:
    assert _error("\n  \n").message == "session log is empty"


def test_not_lossless_values_cannot_be_written() -> None:
    nan_call = RecordedCall(1, {"q": 1}, digest({"q": 1}), True, (float("nan"),))
    header = SessionLogHeader("s", "2026-08-18T00:00:00Z")
    error = encode_session_log(SessionLog(header, (nan_call,))).failure()
    assert error.code == SESSION_LOG_FORMAT
    assert "not lossless" in error.message


@given(st.data())
def test_any_single_byte_change_is_detected_or_still_a_valid_log(data: st.DataObject) -> None:
    # the hash chain covers every record: a changed byte is rejected or changes nothing
    original = _text(_sample()).encode()
    position = data.draw(st.integers(0, len(original) - 1))
    replacement = data.draw(st.integers(0, 255).filter(lambda b: b != original[position]))
    changed = original[:position] + bytes([replacement]) + original[position + 1 :]
    match parse_session_log(changed):
        case Success(parsed):
            assert parsed == _sample()  # only blank-equivalent whitespace can change
        case Failure(error):
            assert error.code == SESSION_LOG_FORMAT


def test_a_long_stream_round_trips_in_order() -> None:
    chunks: tuple[JsonValue, ...] = tuple({"delta": str(i)} for i in range(3000))
    long_log = SessionLog(
        SessionLogHeader("s", "2026-08-18T00:00:00Z"), (call(1, {"q": "long"}, *chunks),)
    )
    assert parse_session_log(_text(long_log)).unwrap().calls[0].chunks == chunks


@pytest.mark.parametrize("garbage", ["{ x", '{\x00"a":1}', "[1,", "not json"])
def test_a_malformed_line_is_a_located_error_not_an_exception(garbage: str) -> None:
    header_line = _text(_sample()).splitlines()[0]
    error = _error(header_line + "\n" + garbage + "\n")
    assert (error.code, error.line) == (SESSION_LOG_FORMAT, 2)
    assert error.message == "line 2: is not valid JSON"
