"""The one-pass acceptances never admit what the ordered checks refuse (FMT-10, FMT-14).

Both one-pass checks, the generated Python `interaction_fits` and the C one
`interaction_struct_fits` (msgspec Structs from the same declarations), must imply that
`check_interaction_in_order(v, line, h)` accepts `v`; ordinary records must fit, or the
fast path would silently never run.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import orjson
import pytest
from cassette_format.rules.fast import interaction_fits, metadata_fits
from cassette_format.rules.interaction import check_interaction_in_order, check_metadata
from cassette_format.rules.struct_fits import interaction_struct_fits
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success
from support.paths import INTEROP

#: Each one-pass check, by name: each must hold every property below on its own.
FITS = {"python": interaction_fits, "struct": interaction_struct_fits}
_CASSETTES = sorted((INTEROP / "cassettes").glob("*.cassette.jsonl"))


def _interactions(path: Any) -> list[dict[str, Any]]:
    records = []
    for line in path.read_bytes().splitlines():
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and value.get("kind") == "cassette/interaction":
            records.append(value)
    return records


SEEDS = [record for path in _CASSETTES for record in _interactions(path)]
ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2.0,
    0.5,
    -0.0,
    math.inf,
    math.nan,
    2**53,
    2**53 - 1,
    "",
    "x",
    "sha256:" + "A" * 64,
    "sha256:" + "a" * 63,
    "result",
    "start-error",
    "result-error",
    "metadata",
    "full",
    "text",
    "tool-result",
    "image",
    [],
    [1],
    ["x"],
    {},
    {"type": "text", "text": 1},
    {"type": "tool-result", "toolCallId": "c", "content": [{"type": 5}]},
    {"type": "image", "attachment": {}},
]


def _paths(value: Any) -> list[tuple[Any, ...]]:
    """Every container path in `value`, by an explicit worklist."""
    found: list[tuple[Any, ...]] = []
    pending: list[tuple[Any, tuple[Any, ...]]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        if isinstance(item, dict):
            found.append(path)
            pending.extend((child, (*path, key)) for key, child in item.items())
        elif isinstance(item, list):
            found.append(path)
            pending.extend((child, (*path, index)) for index, child in enumerate(item))
    return found


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _accepted_in_order(value: Any, previous_hash: str) -> bool:
    return isinstance(check_interaction_in_order(value, 2, previous_hash), Success)


@pytest.mark.parametrize("name", FITS)
def test_ordinary_records_take_the_fast_path(name: str) -> None:  # FMT-10
    fits = FITS[name]
    plain = [seed for seed in SEEDS if _accepted_in_order(seed, seed["previousHash"])]
    fitting = [seed for seed in plain if fits(seed, seed["previousHash"])]
    assert len(plain) > 100
    assert len(fitting) >= 0.95 * len(plain)


@pytest.mark.parametrize("name", FITS)
def test_fits_implies_ordered_acceptance_on_every_interop_record(name: str) -> None:  # FMT-10
    for seed in SEEDS:
        for previous in (seed.get("previousHash"), "sha256:" + "0" * 64):
            if FITS[name](seed, str(previous)):
                assert _accepted_in_order(seed, str(previous))


@pytest.mark.parametrize("name", FITS)
def test_a_wrong_previous_hash_never_fits(name: str) -> None:  # FMT-10 rule 9
    fits = FITS[name]
    seed = next(s for s in SEEDS if fits(s, s["previousHash"]))
    assert not fits(seed, "sha256:" + "f" * 64)


@pytest.mark.parametrize("name", FITS)
@pytest.mark.parametrize("value", [None, [], "x", 1, {"kind": "cassette/interaction"}])
def test_non_records_do_not_fit(name: str, value: Any) -> None:
    assert not FITS[name](value, "sha256:" + "0" * 64)


def _shape(record: dict[str, Any]) -> tuple[Any, ...]:
    request = record.get("request", {})
    outcome = record.get("outcome", {})
    return (
        request.get("storage"),
        tuple(sorted(request.get("metadata", request.get("value", {})))),
        outcome.get("kind"),
        tuple(sorted(outcome.get("error", {}))),
        tuple(sorted(record.get("timing", {}))),
    )


def _one_seed_per_shape() -> list[dict[str, Any]]:
    chosen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for seed in SEEDS:
        if interaction_fits(seed, seed["previousHash"]):
            chosen.setdefault(_shape(seed), seed)
    return list(chosen.values())


def _single_mutations(seed: dict[str, Any]) -> Any:
    """Every record one edit away: each member or item replaced or deleted, one member added."""
    for path in _paths(seed):
        container = _at(seed, path)
        slots = list(container) if isinstance(container, dict) else range(len(container))
        for slot in slots:
            for replacement in ODD_VALUES:
                record = copy.deepcopy(seed)
                _at(record, path)[slot] = copy.deepcopy(replacement)
                yield record
            record = copy.deepcopy(seed)
            del _at(record, path)[slot]
            yield record
        if isinstance(container, dict):
            record = copy.deepcopy(seed)
            _at(record, path)["unexpectedMember"] = None
            yield record


@pytest.mark.parametrize("name", FITS)
def test_no_single_edit_makes_a_refused_record_fit(name: str) -> None:  # FMT-10..14
    fits = FITS[name]
    seeds = _one_seed_per_shape()
    assert len(seeds) >= 4
    checked = 0
    for seed in seeds:
        previous = seed["previousHash"]
        for record in _single_mutations(seed):
            if fits(record, previous):
                assert _accepted_in_order(record, previous), record
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("name", FITS)
@given(
    seed=st.sampled_from(SEEDS),
    choice=st.integers(0, 10**6),
    action=st.sampled_from(["replace", "delete", "add"]),
    replacement=st.sampled_from(ODD_VALUES),
)
def test_a_mutated_record_fits_only_if_the_ordered_checks_accept_it(
    name: str, seed: dict[str, Any], choice: int, action: str, replacement: Any
) -> None:  # FMT-10..14
    record = copy.deepcopy(seed)
    paths = _paths(record)
    container = _at(record, paths[choice % len(paths)])
    if isinstance(container, dict):
        keys = list(container)
        if action == "add" or not keys:
            container["unexpectedMember"] = replacement
        elif action == "delete":
            del container[keys[choice % len(keys)]]
        else:
            container[keys[choice % len(keys)]] = copy.deepcopy(replacement)
    elif container:
        index = choice % len(container)
        if action == "delete":
            del container[index]
        else:
            container[index] = copy.deepcopy(replacement)
    else:
        container.append(copy.deepcopy(replacement))
    previous = str(seed.get("previousHash"))
    if FITS[name](record, previous):
        assert _accepted_in_order(record, previous)


def test_metadata_fits_only_what_the_ordered_metadata_checks_accept() -> None:  # FMT-11
    seeds = [
        seed["request"]["metadata"] for seed in SEEDS if seed["request"]["storage"] == "metadata"
    ]
    assert seeds
    assert all(metadata_fits(seed) for seed in seeds)
    checked = 0
    for seed in seeds[:20]:
        for record in _single_mutations({"metadata": seed}):
            metadata = record.get("metadata")
            if metadata_fits(metadata):
                assert isinstance(check_metadata(metadata, "m"), Success), metadata
            checked += 1
    assert checked > 200
