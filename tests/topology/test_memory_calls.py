"""`MemoryCalls` finds groups that share a request fingerprint, and agrees with the lazy index.

Issue 24: the loaded-cassette index finds a group by its request fingerprint's hash first,
and keeps a group whose fingerprint an earlier group holds under its whole key. The same
request under two parents, members out of occurrence order and a nested parent exercise
both paths; cassette-format's `ReplayIndex` built from the same bytes must answer alike.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from cassette_format import read_cassette
from cassette_format.read.replay_index import read_replay_index
from cassette_topology.recorded import MemoryCalls
from format.builders import cassette_bytes, make_body

NESTED = "root/audit-parent~1"


def _cassette(path: Path) -> Path:
    """Group A (root, "same") twice, occurrence 2 first; group B (nested, "same") twice."""
    bodies = [
        make_body(1, request_tag="same", occurrence=2),
        make_body(2, request_tag="same", parent_key=NESTED),
        make_body(3, request_tag="same"),
        make_body(4, request_tag="same", parent_key=NESTED, occurrence=2),
        dataclasses.replace(make_body(5, request_tag="parent"), call_key=NESTED),
    ]
    path.write_bytes(cassette_bytes(bodies))
    return path


def test_groups_sharing_a_request_fingerprint_are_told_apart(tmp_path: Path) -> None:
    # MATCH-2: the exact group, its members in occurrence order (FMT-16)
    cassette = read_cassette(_cassette(tmp_path / "shared.cassette.jsonl")).unwrap()
    calls = MemoryCalls(cassette.interactions)
    group_a, group_b = calls.group(0), calls.group(1)
    assert group_a[2] == group_b[2]
    assert group_a != group_b
    assert calls.find_group(group_a) == 2
    assert (calls.next_in_group(2), calls.next_in_group(0)) == (0, -1)
    assert calls.find_group(group_b) == 1
    assert (calls.next_in_group(1), calls.next_in_group(3)) == (3, -1)
    assert calls.find_group(("elsewhere", group_a[1], group_a[2])) == -1
    assert [calls.parent_position(at) for at in range(5)] == [-1, 4, -1, 4, -1]
    assert calls.find_call(NESTED) == 4


def test_the_loaded_index_answers_as_the_lazy_index_does(tmp_path: Path) -> None:
    path = _cassette(tmp_path / "shared.cassette.jsonl")
    calls = MemoryCalls(read_cassette(path).unwrap().interactions)
    index = read_replay_index(path).unwrap()
    assert (calls.ambiguous_groups, calls.first_redacted) == (
        index.ambiguous_groups,
        index.first_redacted,
    )
    for at in range(len(index)):
        group = index.group(at)
        assert calls.group(at) == group
        assert calls.find_group(group) == index.find_group(group)
        assert calls.next_in_group(at) == index.next_in_group(at)
        assert calls.parent_position(at) == index.parent_position(at)
        assert calls.find_call(index.call_key(at)) == index.find_call(index.call_key(at))
        assert calls.parent_key(at) == index.parent_key(at)
