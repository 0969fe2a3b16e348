"""The C-encoder fast path never changes a verdict: it agrees with the exact serializer."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from cassette_canonical import canonical_json, fingerprint
from cassette_canonical.fast_path import fast_canonical
from cassette_canonical.serialize import serialize_exact
from cassette_canonical.strings import has_surrogate
from hypothesis import given
from support.strategies import json_values, non_json_leaves


@given(json_values(max_leaves=40))
def test_fast_path_agrees_with_exact_path(value: Any) -> None:
    exact = serialize_exact(value).unwrap()
    fast = fast_canonical(value)
    if fast is not None and not has_surrogate(fast):
        assert fast == exact
    assert canonical_json(value).unwrap() == exact


@given(json_values(max_leaves=10), non_json_leaves())
def test_fast_path_refuses_values_the_exact_path_rejects(value: Any, leaf: Any) -> None:
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
    ],
    ids=repr,
)
def test_fast_path_declines_what_json_dumps_would_get_wrong(value: Any) -> None:
    # Each of these json.dumps serializes, but not canonically (or not at all in CANON).
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
    assert canonical_json(value).unwrap() == text
    assert serialize_exact(value).unwrap() == text
