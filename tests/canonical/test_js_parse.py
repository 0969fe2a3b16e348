"""``parse_js_json``: the reference's JSON.parse numbers plus duplicate detection (FMT-4/5, D-1)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import orjson
import pytest
from cassette_canonical import parse_js_json, parse_json
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success
from support.strategies import json_keys, json_values


@given(json_values(max_leaves=40), st.booleans(), st.sampled_from([None, 0, 2]))
def test_agrees_with_orjson_on_valid_documents(value: Any, ascii_only: bool, indent: Any) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    parsed = parse_js_json(text)
    # repr tells 1.0 from 1: integer tokens stay ints, as the stdlib reads them.
    assert parsed.map(repr) == Success(repr(json.loads(text)))
    try:
        fast = orjson.loads(text)
    except orjson.JSONDecodeError:  # lone surrogates
        return
    assert parsed == Success(fast)  # orjson reads ints beyond 64 bits as the equal double


def _escaped(key: str) -> str:
    """The member name as a JSON string whose first character is written as escapes."""
    units = key[0].encode("utf-16-be", "surrogatepass")
    head = "".join(f"\\u{units[i] << 8 | units[i + 1]:04x}" for i in range(0, len(units), 2))
    return '"' + head + json.dumps(key[1:])[1:-1] + '"'


def _nested(inner: str, openers: list[bool]) -> str:
    """``inner`` wrapped in arrays (False) and objects (True), outermost first."""
    text = inner
    for in_object in reversed(openers):
        text = '{"k":[0],"v":' + text + "}" if in_object else "[1," + text + "]"
    return text


@given(
    json_keys().filter(bool),
    json_values(max_leaves=5),
    st.lists(st.booleans(), max_size=60),
    st.booleans(),
)
def test_flags_duplicates_at_any_depth(
    key: str, value: Any, openers: list[bool], escape: bool
) -> None:  # FMT-5: names compare after escape decoding
    member = json.dumps(value)
    first = json.dumps(key)
    second = _escaped(key) if escape else first
    document = _nested("{" + f"{first}:{member},{second}:{member}" + "}", openers)
    assert parse_js_json(document).failure().code == "JSON_DUPLICATE_MEMBER"
    # A syntax error anywhere, even after the duplicate, is what the reference reports.
    assert parse_js_json(document + ",").failure().code == "JSON_SYNTAX"


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("-0", -0.0),
        ("-0.0", -0.0),
        ("-0e5", -0.0),
        ("1e400", math.inf),
        ("-1e400", -math.inf),
        ("1" * 400, math.inf),
        ("9007199254740993", 9007199254740992),
        ("12345678901234567890", 12345678901234567168),
        ("1E2", 100.0),
        ("5e-324", 5e-324),
        ("1e-400", 0.0),
    ],
)
def test_numbers_are_js_doubles(token: str, expected: float) -> None:  # FMT-4, D-1
    for text in (token, f"[{token}]", f'{{"n":{token}}}', f"[[{token}, 1]]"):
        parsed = parse_js_json(text).unwrap()
        while isinstance(parsed, list | dict):
            parsed = parsed[0] if isinstance(parsed, list) else parsed["n"]
        assert repr(parsed) == repr(expected)
        assert type(parsed) is type(expected)


def test_lossless_mode_still_refuses_what_js_mode_keeps() -> None:  # D-1
    for token in ("-0", "-0.0", "1e400", "1" * 400):
        assert parse_json(f"[{token}]").failure().code == "JSON_NUMBER_NOT_LOSSLESS"


@pytest.mark.parametrize("limit", [None, 50_000])
def test_deep_documents_parse_iteratively(limit: int | None) -> None:  # CANON-9
    depth = 100_000
    text = "[" * depth + "-0" + "]" * depth
    saved = sys.getrecursionlimit()
    if limit is not None:
        sys.setrecursionlimit(limit)  # above the C-stack-safe limit: the exact parser only
    try:
        parsed = parse_js_json(text).unwrap()
        deep = parse_js_json('{"a":' * depth + '{"b":1,"b":2}' + "}" * depth)
    finally:
        sys.setrecursionlimit(saved)
    for _ in range(depth):
        assert isinstance(parsed, list)
        parsed = parsed[0]
    assert repr(parsed) == "-0.0"
    assert deep.failure().code == "JSON_DUPLICATE_MEMBER"


@pytest.mark.parametrize(
    "text", ["", " ", "[1,]", '{"a":1,}', "NaN", "[Infinity]", "01", '"\x01"', "\ufeff{}", "{} x"]
)
def test_rejects_what_json_parse_rejects(text: str) -> None:
    assert parse_js_json(text).failure().code in {"JSON_SYNTAX", "JSON_BOM"}
