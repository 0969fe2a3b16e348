"""JavaScript number text (CANON-5) and the D-1 rules for Python ints and floats."""

from __future__ import annotations

import pytest
from cassette_canonical import canonical_json, number_text, parse_json
from returns.result import Success


@pytest.mark.parametrize(
    ("number", "text"),
    [
        (1, "1"),
        (1.0, "1"),
        (-2, "-2"),
        (0, "0"),
        (0.0, "0"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (10**21, "1e+21"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e16, "10000000000000000"),
        (1e-5, "0.00001"),
        (123.456, "123.456"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (5e-324, "5e-324"),
        (2**53, "9007199254740992"),
        (2**60, "1152921504606847000"),
        (2.0**60, "1152921504606847000"),
        (-(2**60), "-1152921504606847000"),
        (0.1, "0.1"),
        (-0.5, "-0.5"),
        (123e-20, "1.23e-18"),
    ],
)
def test_number_text(number: int | float, text: str) -> None:
    # CANON-5, CANON-7, D-1
    assert number_text(number) == Success(text)


@pytest.mark.parametrize(
    "number", [-0.0, float("nan"), float("inf"), float("-inf"), 2**53 + 1, 12345678901234567890,
               -(2**53) - 1, 10**400, 2**1024]
)  # fmt: skip
def test_number_text_rejects_non_lossless(number: int | float) -> None:
    # CANON-6, D-1: rejected, never rounded
    failure = number_text(number).failure()
    assert failure.code == "NON_LOSSLESS_NUMBER"
    assert canonical_json([number]).failure().path == "$[0]"


def test_number_text_rejects_bool() -> None:
    # CANON-1: bool is not a number
    assert number_text(True).failure().code == "NOT_JSON_VALUE"


@pytest.mark.parametrize(
    ("token", "value", "kind"),
    [
        ("1152921504606847000", 2**60, int),
        ("12345678901234567890", 12345678901234567168, int),
        ("9007199254740993", 2**53, int),
        ("1" + "0" * 5000, None, None),  # overflows to infinity
        ("-0", None, None),
        ("-0.0", None, None),
        ("-1e-400", None, None),
        ("1e400", None, None),
        ("1e-400", 0.0, float),
        ("1.0", 1.0, float),
        ("1E2", 100.0, float),
        ("-5", -5, int),
        ("0", 0, int),
        ("123456789012345", 123456789012345, int),
    ],
)
def test_parse_number_tokens(token: str, value: int | float | None, kind: type | None) -> None:
    # D-1: integer tokens become the nearest double's exact int; -0 and overflow fail
    for text in (token, f"[{token}]", '{"n":' + token + "}"):
        parsed = parse_json(text)
        if value is None:
            error = parsed.failure()
            assert error.code == "JSON_NUMBER_NOT_LOSSLESS"
            assert error.line == 1
        else:
            got = parsed.unwrap()
            got = got[0] if isinstance(got, list) else got["n"] if isinstance(got, dict) else got
            assert got == value
            assert type(got) is kind


def test_parsed_inexact_integer_token_writes_back_identically() -> None:
    # D-1: reference-written 2^60 reads back as exactly 2^60 and re-serializes identically
    assert parse_json("[1152921504606847000]").bind(canonical_json) == Success(
        "[1152921504606847000]"
    )
