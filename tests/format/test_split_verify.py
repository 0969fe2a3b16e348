"""A file verified as two ranges reaches the in-order verdict, at every split point (FMT-15..19).

The merge is exercised in-process at every line boundary (the second range's facts come
from `verify_range` directly); a few tests then run the real helper process (`jobs=2`).
"""

from __future__ import annotations

import dataclasses
import io
import sys
from pathlib import Path
from typing import Any

import pytest
from cassette_format import (
    CassetteFormatError,
    InteractionBody,
    _split,
    header_line,
    interaction_line,
    seal_interaction,
    verify_file,
)
from cassette_format._range_worker import verify_range
from cassette_format._ranges import decode_facts, write_facts
from cassette_format._sequences import SeenSequences
from cassette_format._split import verify_with_rest
from cassette_format.verify import summary_of, verify_stream
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success
from support.paths import INTEROP

from format.builders import make_body, make_header


def _file(bodies: list[InteractionBody]) -> bytes:
    header = make_header()
    lines = [header_line(header).unwrap()]
    previous = header.hash
    for body in bodies:
        sealed = seal_interaction(body, previous).unwrap()
        lines.append(interaction_line(sealed).unwrap())
        previous = sealed.hash
    return b"".join(lines)


def _in_order(data: bytes) -> object:
    result = verify_stream(io.BytesIO(data))
    if isinstance(result, Success):
        return result.unwrap()
    assert isinstance(result, Failure)
    return result.failure().message


def _split_at(path: Path, start: int) -> object | None:
    """The verdict of a split at byte `start`, as `_verify` would report it; None on doubt."""
    with path.open("rb") as stream:
        verdict = verify_with_rest(stream, start, lambda: verify_range(str(path), start))
        if verdict is None:
            return None
        state, problem = verdict
        if problem is not None:
            return problem.message
        return summary_of(state, stream)


def _boundaries(data: bytes) -> list[int]:
    offsets, position = [], 0
    for line in data.splitlines(keepends=True)[:-1]:
        position += len(line)
        offsets.append(position)
    return offsets


def _agrees_at_every_split(data: bytes, tmp_path: Path) -> int:
    """Assert every split's answer is the in-order verdict or a doubt; count the answers."""
    path = tmp_path / "split.cassette.jsonl"
    path.write_bytes(data)
    expected = _in_order(data)
    answered = 0
    for start in _boundaries(data):
        verdict = _split_at(path, start)
        if verdict is not None:
            assert verdict == expected, start
            answered += 1
    return answered


def _bodies(count: int = 12) -> list[InteractionBody]:
    kinds = ["result", "result", "start-error", "result-error"]
    return [make_body(i, kind=kinds[i % 4]) for i in range(1, count + 1)]


def test_a_valid_file_gives_the_same_summary_at_every_split(tmp_path: Path) -> None:  # FMT-21
    data = _file(_bodies())
    answered = _agrees_at_every_split(data, tmp_path)
    assert answered == len(_boundaries(data))  # no doubt on a valid file


def test_a_group_spanning_the_split_counts_once_for_ambiguity(tmp_path: Path) -> None:  # FMT-19
    bodies = _bodies()
    twin = make_body(11, request_tag="request-2", occurrence=2)
    bodies[10] = dataclasses.replace(twin, call_key="root/twin~2")
    data = _file(bodies)
    expected = _in_order(data)
    assert isinstance(expected, dict)
    assert expected["ambiguousGroups"] == 1
    assert _agrees_at_every_split(data, tmp_path) == len(_boundaries(data))


@pytest.mark.parametrize(
    ("position", "change"),
    [
        (10, {"sequence": 3}),  # FMT-16 duplicate sequence across the split
        (10, {"call_key": "CALL-3"}),  # FMT-16 duplicate call key across the split
        (10, {"occurrence": 2}),  # FMT-17 a group missing occurrence 1
        (11, {"sequence": 40}),  # FMT-17 a missing sequence
    ],
)
def test_cross_range_defects_get_the_in_order_message(
    tmp_path: Path, position: int, change: dict[str, object]
) -> None:
    bodies = _bodies()
    bodies[2] = dataclasses.replace(bodies[2], call_key="CALL-3")
    bodies[position] = dataclasses.replace(bodies[position], **change)  # type: ignore[arg-type]
    data = _file(bodies)
    assert isinstance(_in_order(data), str)
    _agrees_at_every_split(data, tmp_path)


def test_a_duplicate_occurrence_across_the_split(tmp_path: Path) -> None:  # FMT-17
    bodies = _bodies()
    copy = make_body(11, request_tag="request-2")
    bodies[10] = dataclasses.replace(copy, call_key="root/copy~1")
    data = _file(bodies)
    assert "duplicates occurrence" in str(_in_order(data))
    _agrees_at_every_split(data, tmp_path)


def test_a_chain_broken_exactly_at_the_split_is_refused(tmp_path: Path) -> None:  # FMT-15
    header = make_header()
    lines = [header_line(header).unwrap()]
    previous = header.hash
    for body in _bodies():
        if body.sequence == 7:
            previous = "sha256:" + "0" * 64  # sealed after a record that is not there
        sealed = seal_interaction(body, previous).unwrap()
        lines.append(interaction_line(sealed).unwrap())
        previous = sealed.hash
    data = b"".join(lines)
    assert "wrong previous record" in str(_in_order(data))
    _agrees_at_every_split(data, tmp_path)


LINES = _file(_bodies(8)).splitlines(keepends=True)


@settings(max_examples=25, deadline=None)
@given(
    action=st.sampled_from(["delete", "duplicate", "swap", "byte"]),
    index=st.integers(0, len(LINES) - 1),
    other=st.integers(0, len(LINES) - 1),
    value=st.integers(0, 255),
)
def test_any_corruption_gets_the_in_order_verdict_at_every_split(
    tmp_path_factory: pytest.TempPathFactory, action: str, index: int, other: int, value: int
) -> None:  # FMT-15..18
    lines = list(LINES)
    if action == "delete":
        del lines[index]
    elif action == "duplicate":
        lines.insert(index, lines[index])
    elif action == "swap":
        lines[index], lines[other] = lines[other], lines[index]
    else:
        line = bytearray(lines[index])
        line[other % len(line)] = value
        lines[index] = bytes(line)
    _agrees_at_every_split(b"".join(lines), tmp_path_factory.mktemp("split"))


def test_interop_cassettes_get_the_reference_verdict_at_every_split(tmp_path: Path) -> None:
    for source in sorted((INTEROP / "cassettes").glob("*.cassette.jsonl")):
        data = source.read_bytes()
        if data.count(b"\n") < 3 or len(data) > 200_000:  # FMT-1..21, bounded for time
            continue
        _agrees_at_every_split(data, tmp_path)


@pytest.fixture
def split_small_files(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("cassette_format.verify.SPLIT_MIN_BYTES", 0)


@pytest.mark.usefixtures("split_small_files")
def test_the_helper_process_splits_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # FMT-21
    data = _file(_bodies(40))
    path = tmp_path / "big.cassette.jsonl"
    path.write_bytes(data)
    collected: list[object] = []
    real_collect = _split._collect

    def spy(helper: Any) -> Any:
        facts = real_collect(helper)
        collected.append(facts)
        return facts

    monkeypatch.setattr(_split, "_collect", spy)
    assert verify_file(path, jobs=2) == verify_file(path, jobs=1) == _in_order(data)
    assert len(collected) == 1
    assert collected[0] is not None  # the helper answered; no fallback happened


@pytest.mark.usefixtures("split_small_files")
def test_the_helper_ignores_modules_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # the directory being verified cannot run code through the helper
    marker = tmp_path / "shadow-ran"
    shadow = tmp_path / "cassette_format"
    shadow.mkdir()
    (shadow / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (shadow / "_range_worker.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    data = _file(_bodies(40))
    path = tmp_path / "big.cassette.jsonl"
    path.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert verify_file(path, jobs=2) == _in_order(data)
    assert not marker.exists()


@pytest.mark.usefixtures("split_small_files")
def test_a_failing_helper_falls_back_to_the_in_order_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # FMT-18: the verdict never depends on the helper
    data = _file(_bodies(40))
    path = tmp_path / "big.cassette.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "no-such-python"))
    assert verify_file(path, jobs=2) == _in_order(data)
    bad = _file([*_bodies(39), dataclasses.replace(make_body(40), sequence=7)])
    path.write_bytes(bad)
    with pytest.raises(CassetteFormatError) as caught:
        verify_file(path, jobs=2)
    assert caught.value.message == _in_order(bad)


def test_facts_survive_the_wire_and_garbage_does_not_decode(tmp_path: Path) -> None:
    data = _file(_bodies())
    path = tmp_path / "wire.cassette.jsonl"
    path.write_bytes(data)
    start = _boundaries(data)[4]
    facts = verify_range(str(path), start)
    assert facts is not None
    wire = io.BytesIO()
    write_facts(facts, wire)
    assert decode_facts(io.BytesIO(wire.getvalue())) == facts
    for junk in (b"", b"null\n", b"{}\n", wire.getvalue()[:-1], wire.getvalue() + b"x"):
        assert decode_facts(io.BytesIO(junk)) is None


@given(st.lists(st.integers(1, 2**40), unique=True), st.lists(st.integers(1, 2**40)))
def test_seen_sequences_behave_as_a_set(ours: list[int], theirs: list[int]) -> None:  # FMT-16
    seen = SeenSequences()
    for sequence in ours:
        assert sequence not in seen
        seen.add(sequence)
    assert all(sequence in seen for sequence in ours)
    expected_missing = next((s for s in range(1, len(ours) + 1) if s not in set(ours)), None)
    assert seen.first_missing() == expected_missing
    other = SeenSequences()
    distinct = list(dict.fromkeys(theirs))
    for sequence in distinct:
        other.add(sequence)
    merged = seen.absorb(*other.parts())
    assert merged == set(ours).isdisjoint(distinct)
    if merged:
        union = set(ours) | set(distinct)
        assert all(sequence in seen for sequence in union)
        assert seen.count == len(union)
