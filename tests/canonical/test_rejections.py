"""Values outside the JSON domain are rejected with a stable code and the JSON path."""

from __future__ import annotations

from collections import OrderedDict, UserDict
from enum import IntEnum
from typing import Any

import pytest
from cassette_canonical import canonical_json, fingerprint
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure
from support.strategies import json_values, non_json_leaves


class Color(IntEnum):
    RED = 1


class Name(str):
    pass


class Custom:
    pass


@pytest.mark.parametrize(
    ("value", "code", "path"),
    [
        ((1, 2), "NOT_JSON_VALUE", "$"),
        ({"a": (1,)}, "NOT_JSON_VALUE", "$.a"),
        ({"a": [0, {1, 2}]}, "NOT_JSON_VALUE", "$.a[1]"),
        ({"a b": [b"x"]}, "NOT_JSON_VALUE", '$["a b"][0]'),
        ([Custom()], "NOT_JSON_VALUE", "$[0]"),
        ({"x": {"y": Color.RED}}, "NOT_JSON_VALUE", "$.x.y"),
        ([Name("s")], "NOT_JSON_VALUE", "$[0]"),
        (OrderedDict(a=1), "NOT_JSON_VALUE", "$"),
        ({"u": UserDict(a=1)}, "NOT_JSON_VALUE", "$.u"),
        ([frozenset()], "NOT_JSON_VALUE", "$[0]"),
        ([1j], "NOT_JSON_VALUE", "$[0]"),
        ({1: "a"}, "NON_STRING_KEY", "$"),
        ({"a": {True: 1}}, "NON_STRING_KEY", "$.a"),
        ({"a": {None: 1}}, "NON_STRING_KEY", "$.a"),
        ({"a": {(1,): 1}}, "NON_STRING_KEY", "$.a"),
        ({"a": {Name("k"): 1}}, "NON_STRING_KEY", "$.a"),
        ([-0.0], "NON_LOSSLESS_NUMBER", "$[0]"),
        ({"n": float("nan")}, "NON_LOSSLESS_NUMBER", "$.n"),
        ({"n": [float("inf")]}, "NON_LOSSLESS_NUMBER", "$.n[0]"),
        ({"n": 2**53 + 1}, "NON_LOSSLESS_NUMBER", "$.n"),
        ([12345678901234567890], "NON_LOSSLESS_NUMBER", "$[0]"),
        ({"\n": [[2**2000]]}, "NON_LOSSLESS_NUMBER", '$["\\n"][0][0]'),
    ],
)
def test_rejected_with_path(value: object, code: str, path: str) -> None:
    # CANON-1, CANON-6, D-1
    for result in (canonical_json(value), fingerprint(value)):
        error = result.failure()
        assert (error.code, error.path) == (code, path)


def test_bool_is_not_int() -> None:
    # CANON-1: True never passes as 1
    assert canonical_json([True, False, 1, 0]).unwrap() == "[true,false,1,0]"
    assert canonical_json({"a": True}).unwrap() != canonical_json({"a": 1}).unwrap()


def test_cycles_are_rejected_and_shared_references_allowed() -> None:
    shared = {"k": [1]}
    assert canonical_json([shared, shared]).unwrap() == '[{"k":[1]},{"k":[1]}]'
    loop: list[Any] = [1]
    loop.append({"again": loop})
    error = canonical_json(loop).failure()
    assert (error.code, error.path) == ("CYCLIC_VALUE", "$[1].again")
    assert fingerprint(loop).failure().code == "CYCLIC_VALUE"


def test_keys_equal_once_surrogates_pair_are_rejected() -> None:
    # CANON-4: a high+low surrogate pair is one character in JavaScript
    value = {"\ud83d\ude00": 1, "😀": 2}
    assert canonical_json(value).failure().code == "NOT_JSON_VALUE"


def test_messages_never_quote_values() -> None:
    secret = "sk-very-secret-prompt"
    error = canonical_json({"prompt": [secret, (secret,)]}).failure()
    assert secret not in str(error)


@given(json_values(max_leaves=12), non_json_leaves(), st.randoms(use_true_random=False))
def test_any_embedded_non_json_leaf_is_rejected(value: Any, leaf: Any, rng: Any) -> None:
    # CANON-1, CANON-6: wherever a bad leaf hides, both entry points fail
    holder: Any = {"v": value}
    node: Any = holder
    key: Any = "v"
    while isinstance(node[key], (dict, list)) and node[key] and rng.random() < 0.7:
        node = node[key]
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
    node[key] = leaf
    assert isinstance(canonical_json(holder), Failure)
    assert isinstance(fingerprint(holder), Failure)
