"""Hypothesis properties of the canonical form over the shared JSON strategies."""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any

from cassette_canonical import canonical_json, fingerprint, is_digest, parse_json, utf16_sort_key
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success
from support.strategies import double_bits, json_objects, json_strings, json_values


def _same(a: Any, b: Any) -> bool:
    """Structural equality that also tells int from bool and list from dict, iteratively."""
    pending = [(a, b)]
    while pending:
        x, y = pending.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if type(x) is not type(y) or x != y:
                return False
        elif isinstance(x, dict):
            if not isinstance(y, dict) or set(x) != set(y):
                return False
            pending.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if not isinstance(y, list) or len(x) != len(y):
                return False
            pending.extend(zip(x, y, strict=True))
        elif x != y or (type(x) is str) != (type(y) is str):
            return False
    return True


@given(json_values())
def test_round_trip(value: Any) -> None:
    # parse(canonical(x)) == x
    text = canonical_json(value).unwrap()
    parsed = parse_json(text).unwrap()
    assert _same(parsed, value)


@given(json_values())
def test_idempotent(value: Any) -> None:
    text = canonical_json(value).unwrap()
    assert parse_json(text).bind(canonical_json) == Success(text)
    assert parse_json(text.encode("utf-8")).bind(canonical_json) == Success(text)


@given(json_values())
def test_fingerprint_is_sha256_of_canonical_text(value: Any) -> None:
    # CANON-8
    text = canonical_json(value).unwrap()
    digest = fingerprint(value).unwrap()
    assert digest == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert is_digest(digest)


@given(json_values())
def test_canonical_text_is_valid_json_and_ascii_safe_escaped(value: Any) -> None:
    # CANON-2, CANON-4: no whitespace outside strings, no raw surrogates, valid UTF-8
    text = canonical_json(value).unwrap()
    text.encode("utf-8")  # would raise on any raw surrogate
    reread = json.loads(text, parse_int=lambda token: int(float(token)))
    assert _same(reread, parse_json(text).unwrap())


@given(st.dictionaries(json_strings(max_size=6), st.integers(0, 9), max_size=8))
def test_key_order_is_utf16_order(members: dict[str, int]) -> None:
    # CANON-3
    parsed = parse_json(canonical_json(members).unwrap()).unwrap()
    assert isinstance(parsed, dict)
    parsed_keys = list(parsed)
    assert parsed_keys == sorted(members, key=utf16_sort_key)


@given(json_objects())
def test_insertion_order_does_not_matter(members: dict[str, Any]) -> None:
    reversed_members = dict(reversed(list(members.items())))
    assert canonical_json(reversed_members) == canonical_json(members)


@given(double_bits())
def test_random_double_bits_round_trip(x: float) -> None:
    # CANON-5, CANON-7: the text parses back to the very same double
    text = canonical_json(x).unwrap()
    back = parse_json(text).unwrap()
    assert type(back) in (int, float)
    assert isinstance(back, int | float)
    assert struct.pack(">d", float(back)) == struct.pack(">d", x)
    assert float(text) == x
    assert not text.endswith(".0")
    assert "e0" not in text
    assert "e-0" not in text


@given(st.integers(min_value=-(2**1023), max_value=2**1023))
def test_ints_are_written_only_when_lossless(n: int) -> None:
    # D-1
    result = canonical_json(n)
    if int(float(n)) == n:
        assert float(result.unwrap()) == float(n)
        assert parse_json(result.unwrap()) == Success(n)
    else:
        assert result.failure().code == "NON_LOSSLESS_NUMBER"


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=20))
def test_strings_escape_like_json_stringify(s: str) -> None:
    # CANON-4: identical to Python's escaping except surrogates, which JS pairs or escapes
    text = canonical_json(s).unwrap()
    if not any("\ud800" <= c <= "\udfff" for c in s):
        assert text == json.dumps(s, ensure_ascii=False)
    assert all(not ("\ud800" <= c <= "\udfff") for c in text)


@given(st.text(max_size=80))
def test_is_digest_only_accepts_the_exact_shape(s: str) -> None:
    # CANON-8
    digest = "sha256:" + hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()
    assert is_digest(digest)
    assert not is_digest(digest + "\n")
    assert not is_digest(digest.upper())
    assert not is_digest(digest[:-1])
    assert not is_digest(s) or s == digest
    assert not is_digest(digest.encode())
