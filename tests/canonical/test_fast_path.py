"""The C-encoder fast path never changes a verdict: it agrees with the exact serializer."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

import orjson
import pytest
from cassette_canonical import canonical_json, fast_path, fingerprint, is_canonical_text
from cassette_canonical.fast_path import fast_canonical
from cassette_canonical.serialize import serialize_exact
from hypothesis import given
from hypothesis import strategies as st
from support.strategies import json_values, non_json_leaves

ALL_ENCODERS = fast_path.ENCODERS
ENCODER_CHOICES = [ALL_ENCODERS[i:] for i in range(len(ALL_ENCODERS))]  # orjson+json, json


@contextmanager
def only(encoders: tuple[object, ...]) -> Iterator[None]:
    """Run with a chosen encoder list (so the stdlib path is tested even where orjson exists)."""
    saved = fast_path.ENCODERS
    fast_path.ENCODERS = encoders  # type: ignore[assignment]
    try:
        yield
    finally:
        fast_path.ENCODERS = saved


@given(json_values(max_leaves=40))
def test_fast_path_agrees_with_exact_path(value: Any) -> None:
    exact = serialize_exact(value).unwrap()
    for encoders in ENCODER_CHOICES:
        with only(encoders):
            fast = fast_canonical(value)
            if fast is not None:
                assert fast.decode("utf-8") == exact
            assert canonical_json(value).unwrap() == exact


@given(json_values(max_leaves=10), non_json_leaves())
def test_fast_path_refuses_values_the_exact_path_rejects(value: Any, leaf: Any) -> None:
    for encoders in ENCODER_CHOICES:
        with only(encoders):
            for wrapped in ([value, leaf], {"k": [leaf], "v": value}):
                assert fast_canonical(wrapped) is None
                assert canonical_json(wrapped).failure() == serialize_exact(wrapped).failure()
                assert fingerprint(wrapped).failure() == serialize_exact(wrapped).failure()


class Text(str):
    pass


class Number(int):
    pass


class Real(float):
    def __repr__(self) -> str:
        return "nonsense"


@pytest.mark.parametrize(
    "value",
    [
        (1, 2),
        {"a": (1,)},
        {1: "a"},
        {None: 1},
        {1.5: 1},
        {True: 1},
        [Text("x")],
        {Text("k"): 1},
        [Number(3)],
        [Real(1.5)],
        OrderedDict(a=1),
        [1.0],
        [1e16],
        [1e-5],
        [2**53 + 1],
        [-0.0],
        {"\uffff": 1, "😀": 2},
        [float("nan")],
        [float("inf")],
        {"a": [1, "\ud800"]},
        {"deep": [[[[[[[[[[1.0]]]]]]]]]]},
    ],
    ids=repr,
)
def test_fast_path_declines_what_json_dumps_would_get_wrong(value: Any) -> None:
    # Each of these json.dumps or orjson serializes, but not canonically (or not at all).
    for encoders in ENCODER_CHOICES:
        with only(encoders):
            assert fast_canonical(value) is None


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"b": [1, 2.5, "x"], "a": None, "c": {"t": True}},
         '{"a":null,"b":[1,2.5,"x"],"c":{"t":true}}'),
        ({"temperature": 0.2, "é": "日本語 😀"}, '{"temperature":0.2,"é":"日本語 😀"}'),
        ({"text": 'say "1.0" [1e5] {:1.0,}'}, '{"text":"say \\"1.0\\" [1e5] {:1.0,}"}'),
    ],
)  # fmt: skip
def test_fast_path_takes_plain_records(value: Any, text: str) -> None:
    for encoders in ENCODER_CHOICES:
        with only(encoders):
            assert fast_canonical(value) == text.encode("utf-8")
            assert canonical_json(value).unwrap() == text
    assert serialize_exact(value).unwrap() == text


_TRICKY_NUMBERS = st.sampled_from(
    [1e16, 1e20, 1e21, 1e-6, 1.5e-6, 1e-7, 1e-5, 100.0, 2.0**53, 2**53, 2**53 - 1, 1e300, 0.1]
)


def _layouts(value: Any) -> list[bytes]:
    """Texts of ``value`` a writer might have produced, canonical or not."""
    texts = [
        json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
            "utf-8", "surrogatepass"
        )
    ]
    for option in (None, orjson.OPT_SORT_KEYS):
        with suppress(orjson.JSONEncodeError):  # lone surrogates, ints beyond 64 bits
            texts.append(orjson.dumps(value, option=option))
    exact: str | None = serialize_exact(value).value_or(None)
    return texts if exact is None else [*texts, exact.encode("utf-8")]


@given(st.one_of(json_values(max_leaves=30), st.lists(_TRICKY_NUMBERS, max_size=3)))
def test_canonical_text_check_is_sound(value: Any) -> None:  # CANON-1..7, FMT-4
    # True only for the value's exact canonical bytes; the canonical text itself passes
    # unless it holds one of the constructs the byte scans cannot tell apart.
    for raw in _layouts(value):
        try:
            parsed = orjson.loads(raw)
        except orjson.JSONDecodeError:  # lone surrogates, ints beyond 64 bits
            continue
        if is_canonical_text(raw, parsed):
            assert raw == serialize_exact(parsed).unwrap().encode("utf-8")


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":1,"a":1}',
        b'{"a": 1}',
        b'{"b":1,"a":2}',
        b'{"\xef\xbf\xbf":1,"\xf0\x9f\x98\x80":2}',  # U+FFFF before U+1F600: code-point order
        b"[1.0]",
        b"[100.0]",
        b"[1e+16]",
        b"[1e-6]",
        b"[1.5e-6]",
        b"[9007199254740993]",
        b'["\\u0061"]',
        b"[1E2]",
        b"0.0",  # a top-level number ends at the end of the text, not at a delimiter
        b"1e-6",
        b"1e+16",
    ],
)
def test_canonical_text_check_declines_other_texts(text: bytes) -> None:
    assert not is_canonical_text(text, orjson.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        b'{"a":[1,2.5,"x"],"b":null}',
        b'{"\xf0\x9f\x98\x80":2,"\xef\xbf\xbf":1}',  # UTF-16 order: the surrogate sorts first
        b"[1e+21,0.00001,1e-7,0.1]",
    ],
)
def test_canonical_text_check_takes_canonical_texts(text: bytes) -> None:
    assert is_canonical_text(text, orjson.loads(text))
