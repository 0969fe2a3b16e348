"""One walk copies a value and proves its canonical text; every use of the proof agrees with
the canonical writer (issue 24: the recorder hashes and stores that text, CANON-8)."""

from __future__ import annotations

from typing import Any

from cassette_canonical import canonical_bytes, fingerprint
from cassette_canonical.fast_path import plain_tree
from cassette_provider.live.redact import _clean, _clean_strings
from cassette_provider.live.snapshot import (
    Strings,
    canonical_check,
    canonical_snapshot,
    snapshot_object,
)
from cassette_topology import LiveParent, live_call, request_metadata
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success
from support.strategies import json_objects, json_values, non_json_leaves

_TRICKY = st.sampled_from([1e16, 1e21, 1e-6, 1e-7, 1e-5, 100.0, 2.0**53, 2**53, 0.1, -2.5])


def _objects() -> st.SearchStrategy[dict[str, Any]]:
    tricky = st.dictionaries(st.text(max_size=3), st.lists(_TRICKY, max_size=3), max_size=2)
    return st.one_of(json_objects(max_leaves=30), tricky)


@given(_objects())
def test_a_proved_text_is_the_copys_canonical_bytes(value: dict[str, Any]) -> None:  # CANON-8
    copied, text = canonical_snapshot(value).unwrap()
    assert copied == snapshot_object(value).unwrap()
    if text is not None:
        assert text == canonical_bytes(copied).unwrap()


def test_plain_payloads_are_proved_and_odd_numbers_are_not() -> None:
    plain = {"output": [{"type": "text", "text": "é 😀 \\ \n"}], "n": 2.5, "k": -3}
    assert canonical_snapshot(plain).unwrap()[1] == canonical_bytes(plain).unwrap()
    for odd in (1.0, 1e16, 1e-6, 2**60):
        assert canonical_snapshot({"x": odd}).unwrap()[1] is None


@given(_objects(), _objects())
def test_fingerprints_from_proved_texts_equal_the_canonical_writers(
    request: dict[str, Any], context: dict[str, Any]
) -> None:  # CANON-8
    request_copy, request_text = canonical_snapshot(request).unwrap()
    context_copy, context_text = canonical_snapshot(context).unwrap()
    parent = LiveParent(id="p")
    plain = live_call(parent, request_copy, context_copy).unwrap()
    proved = live_call(
        parent, request_copy, context_copy, request_text=request_text, context_text=context_text
    )
    if request_text is not None and context_text is not None:
        assert proved.unwrap() == plain
        assert plain.request_fingerprint == fingerprint(request_copy).unwrap()


_SECRETISH = st.sampled_from(
    ["sk-" + "a" * 20, "Bearer abcdefghijkl", "password: hunter22!", "apiKey", "token", "plain"]
)


@given(
    st.one_of(
        json_objects(max_leaves=20),
        st.dictionaries(_SECRETISH, st.lists(_SECRETISH, max_size=2), max_size=3),
    )
)
def test_the_gate_over_collected_strings_agrees_with_its_own_walk(value: dict[str, Any]) -> None:
    # REDACT-3: the strings the snapshot walk collects give the gate the verdicts its own
    # walk over the copy gives (no secret-bearing string or secret key is missed).
    strings = Strings()
    copied, _ = canonical_snapshot(value, strings).unwrap()
    assert _clean_strings(strings) == _clean(copied)
    assert sorted(strings.keys) == sorted(_keys(copied))


def _keys(value: object) -> list[str]:
    found: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@given(json_values(max_leaves=20), st.one_of(_objects(), st.just({})))
def test_a_proved_requests_metadata_is_the_exact_writers(
    prompt: object, members: dict[str, Any]
) -> None:  # NORM-5
    # promptBytes from orjson's text of a proved request's prompt equals the exact writer's.
    copied, text = canonical_snapshot({**members, "prompt": prompt}).unwrap()
    exact = request_metadata(copied).unwrap()
    assert request_metadata(copied, proved=text is not None).unwrap() == exact
    if text is not None:
        assert exact.prompt_bytes == len(canonical_bytes(copied["prompt"]).unwrap())


class _Key(str):
    """A str subclass: not plain JSON (issue 26)."""


def _odd_leaves() -> st.SearchStrategy[Any]:
    """Leaves the snapshot walk refuses or notes: non-JSON values, subclasses, odd floats."""
    return st.one_of(
        non_json_leaves(),
        st.builds(_Key, st.text(max_size=2)),
        st.sampled_from([True, None, 2**60, 1e16, 1e-7, 100.0, 0.5]),
    )


def _mixed_objects() -> st.SearchStrategy[dict[str, Any]]:
    leaves = st.one_of(json_values(max_leaves=8), _odd_leaves())
    nested = st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=3), inner, max_size=3)
        ),
        max_leaves=12,
    )
    return st.dictionaries(st.text(max_size=3), nested, max_size=4)


@given(_mixed_objects())
def test_a_check_without_a_copy_gives_the_snapshots_verdict_and_text(
    value: dict[str, Any],
) -> None:  # NORM-1, CANON-8: the recorder's uncopied request and context
    copied = canonical_snapshot(value)
    checked = canonical_check(value)
    assert isinstance(checked, Failure) == isinstance(copied, Failure)
    if isinstance(copied, Success):
        kept, text = checked.unwrap()
        assert (kept, text) == copied.unwrap()
        if text is not None and plain_tree(value):
            assert kept is value  # proved plain: no copy is made


def test_a_check_refuses_what_the_snapshot_refuses() -> None:  # NORM-1
    shared: list[object] = []
    cyclic: dict[str, object] = {"a": shared}
    shared.append(cyclic)
    for refused in (
        {"k": (1,)},
        {"k": [float("nan")]},
        {"k": -0.0},
        {"k": {1: "x"}},
        {"k": _Key("x")},
        {"k": {_Key("x"): 1}},
        {"k": 2**53 + 1},
        cyclic,
    ):
        assert isinstance(canonical_check(refused), Failure), refused
        assert isinstance(canonical_snapshot(refused), Failure), refused
