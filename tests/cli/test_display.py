"""display() escaping and toFixed(1) rounding as the reference prints them (CLI-8, CLI-10)."""

from __future__ import annotations

import unicodedata

import pytest
from cassette_cli.decimals import one_decimal
from cassette_cli.display import CONTROL_RANGES, display, printable
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\n", "\\u{000a}"),
        ("\x1b[31m", "\\u{001b}[31m"),
        ("\U000e0001", "\\u{e0001}"),  # no surrogate pairs in the escape
        ("\u2028\u2029\u200b\u202e\xad", "\\u{2028}\\u{2029}\\u{200b}\\u{202e}\\u{00ad}"),
        ("plain é 😀 /", "plain é 😀 /"),
        ("\ud800", "\ud800"),  # lone surrogates are left unchanged
        ("\ud83d\ude00", "😀"),  # a surrogate pair is one character
    ],
)
def test_display_escapes_control_format_and_separators(text: str, shown: str) -> None:  # CLI-8
    assert display(text) == shown


def test_pinned_table_covers_this_pythons_categories() -> None:  # GAP-28
    pinned = {code for low, high in CONTROL_RANGES for code in range(low, high + 1)}
    here = {
        code
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Zl", "Zp")
    }
    # Newer Unicode only adds characters; the pinned table is a superset of older tables.
    assert here <= pinned
    assert 0x1343F in pinned


@given(st.text())
def test_display_output_has_no_control_characters(text: str) -> None:  # CLI-8
    shown = display(text)
    assert all(unicodedata.category(c) not in ("Cc", "Cf", "Zl", "Zp") for c in shown)


def test_printable_replaces_lone_surrogates() -> None:  # CLI-1
    assert printable("a\ud800b\ud83d\ude00") == "a\ufffdb😀"
    printable("x\udfff").encode("utf-8")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (12.25, "12.3"),  # ties away from zero, where Python's .1f gives 12.2
        (-0.25, "-0.3"),
        (-0.04, "-0.0"),
        (0.05, "0.1"),  # 0.05 is a hair above the tie in binary
        (0.15, "0.1"),  # and 0.15 a hair below
        (2424.211, "2424.2"),
        (917.764, "917.8"),
        (12, "12.0"),
        (0, "0.0"),
        (-0.0, "0.0"),
        (1e21, "1e+21"),
        (123456789012345680000.0, "123456789012345683968.0"),
    ],
)
def test_one_decimal_matches_to_fixed(value: float, text: str) -> None:  # CLI-10
    assert one_decimal(value) == text


def _to_fixed_by_fractions(value: float) -> str:
    """toFixed(1) from its spec: n = round(|x| * 10) with ties up, over the exact rational x."""
    from fractions import Fraction

    exact = Fraction(value)
    sign = "-" if exact < 0 else ""
    tenths = int(abs(exact) * 10 + Fraction(1, 2))  # floor(|x|*10 + 1/2): ties away from zero
    return f"{sign}{tenths // 10}.{tenths % 10}"


@given(st.floats(min_value=-1e20, max_value=1e20, allow_nan=False))
def test_one_decimal_agrees_with_exact_rational_rounding(value: float) -> None:  # CLI-10
    assert one_decimal(value) == _to_fixed_by_fractions(value)


@given(st.integers(0, 10**6), st.sampled_from([5, 15, 25, 35, 45, 55, 65, 75, 85, 95]))
def test_one_decimal_on_hundredths(whole: int, hundredths: int) -> None:  # CLI-10
    value = whole + hundredths / 100
    assert one_decimal(value) == _to_fixed_by_fractions(value)
