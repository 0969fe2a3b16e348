"""Depth and size: parsing and serializing are iterative (CANON-9) and linear."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from cassette_canonical import canonical_json, fingerprint, parse_json
from returns.result import Success

DEPTH = 100_000


def test_deep_arrays_round_trip() -> None:
    # CANON-9
    text = "[" * DEPTH + "]" * DEPTH
    value = parse_json(text).unwrap()
    assert canonical_json(value) == Success(text)


def test_deep_objects_round_trip() -> None:
    # CANON-9
    text = '{"a":' * DEPTH + '"leaf"' + "}" * DEPTH
    value = parse_json(text).unwrap()
    assert canonical_json(value) == Success(text)
    assert fingerprint(value).map(len) == Success(71)


def test_deep_mixed_built_in_python() -> None:
    # 20,000 nested tool-result blocks: about 40,000 JSON levels
    value: Any = {"type": "text", "text": "end"}
    for _ in range(20_000):
        value = {"type": "tool-result", "content": [value]}
    text = canonical_json(value).unwrap()
    assert text.startswith('{"content":[{"content":[')
    assert parse_json(text).bind(canonical_json) == Success(text)


def test_deep_error_is_located() -> None:
    text = "[" * DEPTH + "1,]" + "]" * (DEPTH - 1)
    error = parse_json(text).failure()
    assert (error.code, error.column) == ("JSON_SYNTAX", DEPTH + 3)
    assert str(error.path).endswith("[0][1]")
    value: Any = (1,)
    for _ in range(DEPTH):
        value = [value]
    failure = canonical_json(value).failure()
    assert failure.code == "NOT_JSON_VALUE"
    assert failure.path == "$" + "[0]" * DEPTH


def test_deep_cycle_terminates() -> None:
    root: list[Any] = []
    node = root
    for _ in range(5_000):
        child: list[Any] = []
        node.append(child)
        node = child
    node.append(root)
    assert canonical_json(root).failure().code == "CYCLIC_VALUE"


@pytest.mark.parametrize("char", ["x", "é", "😀", "\n"])
def test_ten_megabyte_string_round_trips(char: str) -> None:
    s = char * (10_000_000 // len(char.encode("utf-8")))
    text = canonical_json({"s": s}).unwrap()
    assert parse_json(text) == Success({"s": s})
    assert parse_json(text.encode("utf-8")) == Success({"s": s})


def test_high_recursion_limit_uses_the_iterative_paths() -> None:
    # A raised limit must not let the C json code recurse deep enough to overflow the C stack.
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(1_000_000)
    try:
        text = "[" * DEPTH + "]" * DEPTH
        value = parse_json(text).unwrap()
        assert canonical_json(value) == Success(text)
        assert parse_json('{"a":[1,2.5]}') == Success({"a": [1, 2.5]})
        assert canonical_json({"b": 1, "a": [0.5]}) == Success('{"a":[0.5],"b":1}')
    finally:
        sys.setrecursionlimit(saved)
