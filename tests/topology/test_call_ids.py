"""NORM-10 numbering shared by parent-context normalization and session binding."""

from __future__ import annotations

from cassette_topology.call_ids import stable_call_id


def test_ids_are_numbered_by_first_appearance_and_keep_their_number() -> None:
    seen: dict[str, str] = {}
    walk = ["toolu_b", "toolu_a", "toolu_b", "call_9", "toolu_a"]
    assert [stable_call_id(raw, seen) for raw in walk] == [
        "call-1",
        "call-2",
        "call-1",
        "call-3",
        "call-2",
    ]
    assert seen == {"toolu_b": "call-1", "toolu_a": "call-2", "call_9": "call-3"}


def test_each_walk_numbers_from_one_again() -> None:
    first: dict[str, str] = {}
    stable_call_id("x", first)
    assert stable_call_id("y", {}) == "call-1"
