"""The session-log format (LLMREPLAY-*) lives in cassette-format and needs nothing above it."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from cassette_canonical import JsonValue, fingerprint
from cassette_format.sessions import (
    SESSION_LOG_FORMAT,
    RecordedCall,
    SessionLog,
    SessionLogHeader,
    encode_session_log,
    parse_session_log,
)
from returns.result import Failure


def _digest(value: JsonValue) -> str:
    return fingerprint(value).unwrap()


_TIGHT: dict[str, Any] = {"separators": (",", ":"), "ensure_ascii": False}
_REDACTED: JsonValue = {"messages": [{"role": "user", "content": "[REDACTED]"}], "model": "m"}
_STREAMED: JsonValue = {"messages": [{"role": "user", "content": "é \u2028 𝄞"}], "stream": True}
_META: JsonValue = {"status": 200, "contentType": "application/json", "body": "json"}

#: Every optional member once: a header with parent, seed, call key and ordinal; a redacted
#: call with match prints and meta; a streamed call; a response-only redaction.
_LOG = SessionLog(
    SessionLogHeader("child-7", "2026-08-18T03:00:01.000Z", "root-1", 1, "root/1:child", 2),
    (
        RecordedCall(
            1,
            _REDACTED,
            _digest(_REDACTED),
            False,
            ({"body": "[REDACTED]"},),
            _META,
            _digest({"x": 1}),
            _digest({"x": 2}),
            1,
            2,
        ),
        RecordedCall(2, _STREAMED, _digest(_STREAMED), True, ({"d": "x"}, {"d": 1.5}, {"d": ""})),
        RecordedCall(3, None, _digest(None), False, (None,), None, None, None, 0, 3),
    ),
)
#: SHA-256 of `_LOG`'s text as cassette-topology's codec wrote it before the move (issue 15).
_LOG_TEXT_SHA256 = "5adda2877357ba9a0548dd53cb1198d396a9f46bfe9e1dc08adb13f0cd18cff8"


def test_the_encoded_bytes_are_the_ones_written_before_the_move() -> None:
    text = encode_session_log(_LOG).unwrap()
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == _LOG_TEXT_SHA256
    assert len(text.splitlines()) == 13
    assert parse_session_log(text).unwrap() == _LOG


def test_optional_members_are_absent_never_null() -> None:
    bare = SessionLog(SessionLogHeader("root-1", "2026-08-18"), ())
    text = encode_session_log(bare).unwrap()
    assert "null" not in text
    assert '"parentSession"' not in text
    assert '"seedCalls"' not in text


def test_a_header_hash_that_is_not_its_own_fails_on_line_1() -> None:
    text = encode_session_log(_LOG).unwrap()
    header, rest = text.split("\n", 1)
    forged = header.replace('"id":"child-7"', '"id":"child-8"')
    match parse_session_log(forged + "\n" + rest):
        case Failure(error):
            assert (error.code, error.line, error.message) == (
                SESSION_LOG_FORMAT,
                1,
                "line 1: hash mismatch",
            )
        case parsed:
            raise AssertionError(f"a forged header was accepted: {parsed}")


def test_the_format_reads_session_logs_without_cassette_topology() -> None:
    probe = (
        "import sys, cassette_format.sessions as s\n"
        "assert s.parse_session_log('').failure().code == 'SESSION_LOG_FORMAT'\n"
        "print(sorted(m for m in sys.modules if m.startswith('cassette_topology')))\n"
    )
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert shown.strip() == "[]"


def _relaid(text: str, index: int, layout: Callable[[dict[str, JsonValue]], str]) -> str:
    lines = text.split("\n")
    lines[index] = layout(json.loads(lines[index]))
    return "\n".join(lines)


@pytest.mark.parametrize(
    "layout",
    [
        lambda value: json.dumps(value, ensure_ascii=False),  # spaces after separators
        lambda value: json.dumps(dict(reversed(value.items())), **_TIGHT),  # key order
        lambda value: json.dumps(value, separators=(",", ":")),  # é written as \u00e9
        lambda value: " " + json.dumps(value, **_TIGHT),  # a leading space
        lambda value: json.dumps(value, **_TIGHT).replace("log/", "log\\/"),  # `\\/` for `/`
    ],
)
def test_a_line_not_in_canonical_layout_is_refused(
    layout: Callable[[dict[str, JsonValue]], str],
) -> None:  # docs/session-log.md: one canonical JSON object per line; the value is unchanged
    text = encode_session_log(_LOG).unwrap()
    index = next(i for i, line in enumerate(text.split("\n")) if "é" in line)
    relaid = _relaid(text, index, layout)
    assert relaid != text
    problem = parse_session_log(relaid).failure()
    assert problem.code == SESSION_LOG_FORMAT
    assert problem.line == index + 1
    assert problem.message == (
        f"line {index + 1}: is not canonical JSON text (one canonical JSON object per line)"
    )


def test_crlf_line_ends_and_blank_lines_stay_tolerated() -> None:
    text = encode_session_log(_LOG).unwrap()
    assert parse_session_log(text.replace("\n", "\r\n\n \t\n")).unwrap() == _LOG
