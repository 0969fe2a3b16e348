"""Strict JSON text parsing: what is accepted, and each refusal's code and location."""

from __future__ import annotations

import pytest
from cassette_canonical import CanonicalError, parse_json
from returns.result import Success


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (' \t\r\n{"a" : [ 1 , 2.5 , "x" , true , null ] }\n', {"a": [1, 2.5, "x", True, None]}),
        ('"\\ud83d\\ude00"', "😀"),
        ('"\\ud800"', "\ud800"),
        ('"\\u00e9\\/\\b\\f\\n\\r\\t\\"\\\\"', 'é/\b\f\n\r\t"\\'),
        ('"\\uD83D\\uDE00"', "😀"),
        ("[]", []),
        ("{}", {}),
        ('"\u2028\x7f"', "\u2028\x7f"),
        ('["\ud83d\\ude00"]', ["😀"]),  # a raw high surrogate then an escaped low one
    ],
)  # fmt: skip
def test_accepts(text: str, value: object) -> None:
    assert parse_json(text) == Success(value)
    if not any("\ud800" <= c <= "\udfff" for c in text):
        assert parse_json(text.encode("utf-8")) == Success(value)


def _error(text: str | bytes) -> CanonicalError:
    return parse_json(text).failure()


@pytest.mark.parametrize(
    ("text", "code", "line", "column", "path"),
    [
        ('{"a":1,"a":2}', "JSON_DUPLICATE_MEMBER", 1, 8, "$"),
        # FMT-5: equal only after escape decoding
        ('{"cassetteId":1,"cassette\\u0049d":2}', "JSON_DUPLICATE_MEMBER", 1, 17, "$"),
        ('{"x":[{"b":1,\n "b":2}]}', "JSON_DUPLICATE_MEMBER", 2, 2, "$.x[0]"),
        ('{"\\ud83d\\ude00":1,"😀":2}', "JSON_DUPLICATE_MEMBER", 1, 19, "$"),
        ("[1,-0]", "JSON_NUMBER_NOT_LOSSLESS", 1, 4, "$[1]"),
        ('{"n":\n\n  1e999}', "JSON_NUMBER_NOT_LOSSLESS", 3, 3, "$.n"),
        ("\ufeff{}", "JSON_BOM", 1, 1, None),
        ("", "JSON_SYNTAX", 1, 1, "$"),
        ("   ", "JSON_SYNTAX", 1, 4, "$"),
        ("NaN", "JSON_SYNTAX", 1, 1, "$"),
        ("[Infinity]", "JSON_SYNTAX", 1, 2, "$[0]"),
        ("[-Infinity]", "JSON_SYNTAX", 1, 2, "$[0]"),
        ("[1,]", "JSON_SYNTAX", 1, 4, "$[1]"),
        ('{"a":1,}', "JSON_SYNTAX", 1, 8, "$"),
        ("[1 2]", "JSON_SYNTAX", 1, 4, "$"),
        ("[1] [2]", "JSON_SYNTAX", 1, 5, "$"),
        ("01", "JSON_SYNTAX", 1, 2, "$"),
        ("1.", "JSON_SYNTAX", 1, 2, "$"),
        (".5", "JSON_SYNTAX", 1, 1, "$"),
        ("+1", "JSON_SYNTAX", 1, 1, "$"),
        ("0x10", "JSON_SYNTAX", 1, 2, "$"),
        ('"\x01"', "JSON_SYNTAX", 1, 2, "$"),
        ('"abc', "JSON_SYNTAX", 1, 1, "$"),
        ('"\\x"', "JSON_SYNTAX", 1, 2, "$"),
        ('"\\u12"', "JSON_SYNTAX", 1, 3, "$"),
        ("{a:1}", "JSON_SYNTAX", 1, 2, "$"),
        ("{'a':1}", "JSON_SYNTAX", 1, 2, "$"),
        ('{"a" 1}', "JSON_SYNTAX", 1, 6, "$"),
        ("[tru]", "JSON_SYNTAX", 1, 2, "$[0]"),
        ("\u00a0[]", "JSON_SYNTAX", 1, 1, "$"),  # only space, tab, LF, CR are whitespace
        ("[1]\x0b", "JSON_SYNTAX", 1, 4, "$"),
        # FMT-5: a syntax error takes precedence over an earlier duplicate
        ('{"a":1,"a":2', "JSON_SYNTAX", 1, 13, "$"),
        ("[-0, x]", "JSON_SYNTAX", 1, 6, "$[1]"),
    ],
)
def test_rejects_with_location(
    text: str, code: str, line: int, column: int, path: str | None
) -> None:
    error = _error(text)
    assert (error.code, error.line, error.column, error.path) == (code, line, column, path)


@pytest.mark.parametrize(
    ("data", "line", "column"),
    [
        (b'["\xff"]', 1, 3),
        (b'[\n"ok",\n"\xc3"]', 3, 2),
        (b'"\xed\xa0\x80"', 1, 2),  # an encoded surrogate is not UTF-8
        (b'"\xc0\xaf"', 1, 2),  # overlong
    ],
)
def test_rejects_invalid_utf8(data: bytes, line: int, column: int) -> None:
    # D-2: strict UTF-8
    error = _error(data)
    assert (error.code, error.line, error.column) == ("JSON_INVALID_UTF8", line, column)


def test_rejects_utf8_bom_bytes() -> None:
    assert _error(b"\xef\xbb\xbf{}").code == "JSON_BOM"


def test_bytes_like_inputs() -> None:
    assert parse_json(bytearray(b"[1]")) == Success([1])
    assert parse_json(memoryview(b'{"a":2}')) == Success({"a": 2})


def test_non_text_input_is_a_failure() -> None:
    assert parse_json(12).failure().code == "NOT_JSON_VALUE"  # type: ignore[arg-type]


def test_messages_never_quote_input() -> None:
    secret = "sk-super-secret"
    for text in (f'["{secret}" x]', f'{{"{secret}":1,"{secret}":2}}', f'"{secret}\x01"'):
        assert secret not in str(_error(text))
