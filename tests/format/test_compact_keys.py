"""The compact offset tables give the exact sets' verdicts (FMT-16, 17, 19), collisions or not.

`verify_stream` on a seekable stream remembers keys as hash tags plus line offsets and
confirms every tag hit by reading the line back (`_line_keys.CompactKeys`); the loader and
a pipe keep the keys themselves (`ExactKeys`). Random files with repeated call keys,
groups and occurrences must get the same message or summary from all three, also when
the tags are shrunk to a bit or none, so that every lookup collides.
"""

from __future__ import annotations

import functools
import io
import os
import subprocess
from pathlib import Path

import pytest
from cassette_canonical import JsonValue
from cassette_format import (
    FormatProblem,
    parse_cassette,
    summarize,
    verify_file,
    verify_stream,
)
from cassette_format.read.line_keys import CompactKeys
from cassette_format.read.offset_table import OffsetTable
from cassette_format.read.sequences import SeenSequences
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Result, Success

from format.builders import LineSpec, cassette_bytes, line_specs, spec_bodies


class _Pipe(io.RawIOBase):
    """A stream that cannot seek, so the verifier keeps exact keys."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _verdict(result: Result[dict[str, JsonValue], FormatProblem]) -> object:
    match result:
        case Success(summary):
            return summary
        case Failure(problem):
            return problem.message
    raise AssertionError(result)  # pragma: no cover


def _loaded(data: bytes) -> object:
    match parse_cassette(data):
        case Success(cassette):
            return summarize(cassette)
        case Failure(problem):
            return problem.message
    raise AssertionError(data)  # pragma: no cover


@settings(max_examples=150, deadline=None)
@given(specs=line_specs(), tag_bits=st.sampled_from([None, 1, 0]))
def test_compact_tables_agree_with_exact_sets(specs: list[LineSpec], tag_bits: int | None) -> None:
    # FMT-16, FMT-17, FMT-19, FMT-21
    data = cassette_bytes(spec_bodies(specs))
    expected = _loaded(data)
    assert _verdict(verify_stream(io.BufferedReader(_Pipe(data)))) == expected
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "cassette_format.read.verify.CompactKeys",
            functools.partial(CompactKeys, tag_bits=tag_bits),
        )
        assert _verdict(verify_stream(io.BytesIO(data))) == expected


def test_a_repeated_group_is_counted_ambiguous_only_when_outcomes_differ() -> None:  # FMT-19
    same = spec_bodies([(1, 1, "a", 1, "result", 0), (2, 2, "a", 2, "result", 0)])
    differ = spec_bodies([(1, 1, "a", 1, "result", 0), (2, 2, "a", 2, "result", 1)])
    # one group of four, members 3 and 4 differing from 1: still one ambiguous group
    four = spec_bodies([(s, s, "a", s, "result", 0 if s < 3 else 1) for s in (2, 1, 4, 3)])
    for bodies, count in ((same, 0), (differ, 1), (four, 1)):
        summary = verify_stream(io.BytesIO(cassette_bytes(bodies))).unwrap()
        assert summary["ambiguousGroups"] == count


def test_the_first_seen_broken_group_names_the_missing_occurrence() -> None:  # FMT-17
    # group "a" (seen first) lacks occurrence 2; group "b" lacks occurrence 1
    bodies = spec_bodies(
        [
            (1, 1, "a", 1, "result", 0),
            (2, 2, "b", 2, "result", 0),
            (3, 3, "a", 3, "result", 0),
        ]
    )
    data = cassette_bytes(bodies)
    message = "cassette parent-context/request group is missing occurrence 2"
    assert _loaded(data) == message
    assert _verdict(verify_stream(io.BytesIO(data))) == message


def test_a_stream_not_at_its_start_is_verified_from_there() -> None:  # FMT-19 read-back offsets
    data = cassette_bytes(spec_bodies([(1, 1, "a", 1, "result", 0), (2, 2, "a", 2, "result", 1)]))
    stream = io.BytesIO(b"ignored prefix\n" + data)
    stream.readline()
    assert verify_stream(stream).unwrap() == verify_stream(io.BytesIO(data)).unwrap()


def test_verify_file_starts_no_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.cassette.jsonl"
    path.write_bytes(
        cassette_bytes(spec_bodies([(s, s, "a", s, "result", 0) for s in range(1, 9)]))
    )

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("verify_file must stay in this process")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    assert verify_file(path)["interactions"] == 8


def _same_line(lines: list[int], key: int, at: int) -> bool:
    """Whether the "line" at offset `at` holds `key`."""
    return lines[at] == key


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.integers(0, 40), max_size=300),
    tag_bits=st.sampled_from([None, 0, 1, 3]),
    widen_at=st.integers(0, 300),
    reserve=st.tuples(st.integers(0, 300), st.integers(0, 5000)),
    place=st.booleans(),
)
def test_offset_table_is_a_set_of_keys(
    keys: list[int],
    tag_bits: int | None,
    widen_at: int,
    reserve: tuple[int, int],
    place: bool,
) -> None:
    """Each line holds one key; `insert` refuses exactly the keys seen before, as a set does.

    So does `place` then `insert` (the reader's way), sized ahead by `reserve` or not.
    """
    lines: list[int] = []  # the "file": the key at each offset
    table = OffsetTable(offset_bits=4, tag_bits=tag_bits)
    seen: set[int] = set()
    for index, key in enumerate(keys):
        offset = len(lines)
        lines.append(key)
        if index == widen_at or not table.fits(offset):
            table.widen(offset)
        if index == reserve[0]:
            table.reserve(reserve[1])
        same = functools.partial(_same_line, lines, key)
        placed = place and table.place(hash(key), offset)
        added = placed or table.insert(hash(key), offset, same)
        assert not placed or key not in seen  # `place` adds only where no tag can match
        assert added == (key not in seen)
        seen.add(key)
        assert table.count == len(seen)
    for key in range(41):
        found = [at for at in table.candidates(hash(key)) if lines[at] == key]
        assert len(found) == (1 if key in seen else 0)


@given(st.lists(st.integers(1, 2**40), unique=True))
def test_seen_sequences_behave_as_a_set(ours: list[int]) -> None:  # FMT-16, FMT-17
    seen = SeenSequences()
    for sequence in ours:
        assert sequence not in seen
        seen.add(sequence)
    assert all(sequence in seen for sequence in ours)
    expected_missing = next((s for s in range(1, len(ours) + 1) if s not in set(ours)), None)
    assert seen.first_missing() == expected_missing
