"""The writer's chain: one sealer and the reader's own links, compact state (WRITE-7, FMT-16).

`WriterChain` seals a body into its exact line (one serialization, the hash of the canonical
bytes, nothing decoded back) and refuses what the loader would reject beside what was
written, with the same FMT-15/16 checks the reader runs (`read.links`); keys are kept as tags
and offsets, confirmed by reading the line back, also before the line reaches the file.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassette_canonical import canonical_json, fingerprint
from cassette_format import header_line, interaction_line, verify_file
from cassette_format.write.chain import Sealed, WriterChain
from cassette_format.write.seal import sealed_line
from returns.result import Failure, Result, Success

from format.builders import make_body, make_header


def _sealed(result: Result[Sealed, object]) -> Sealed:
    assert isinstance(result, Success), result
    sealed: Sealed = result.unwrap()
    return sealed


def _refusal(result: Result[Sealed, object]) -> str:
    assert isinstance(result, Failure), result
    return str(result.failure())


@pytest.fixture
def fd(tmp_path: Path) -> Iterator[int]:
    """A new cassette holding only its header, open for reading and writing."""
    handle = os.open(tmp_path / "c.cassette.jsonl", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(handle, header_line(make_header()).unwrap())
    yield handle
    os.close(handle)


def _chain(fd: int, tag_bits: int | None = None) -> WriterChain:
    resumed = WriterChain.resume(fd, tag_bits=tag_bits)
    assert isinstance(resumed, Success), resumed
    chain: WriterChain = resumed.unwrap()
    return chain


def _write(fd: int, chain: WriterChain, sealed: Sealed) -> None:
    offset = os.fstat(fd).st_size
    chain.accept(sealed, offset)
    os.pwrite(fd, sealed.line, offset)
    chain.written()


def test_the_sealed_line_is_the_canonical_line_and_its_hash_the_bodys_fingerprint(
    fd: int,
) -> None:
    chain = _chain(fd)
    body = make_body(1, storage="metadata")
    sealed = _sealed(chain.seal(body))
    unhashed = {**body.to_json(), "previousHash": make_header().hash}
    assert sealed.interaction.hash == fingerprint(unhashed).unwrap()
    assert sealed.line == interaction_line(sealed.interaction).unwrap()
    assert sealed.interaction.body == body
    assert sealed.interaction.previous_hash == make_header().hash


def test_a_hash_member_sorting_last_is_cut_with_the_comma_before_it() -> None:
    digest, line = sealed_line({"a": [1, "\u00e9"], "f": {"hash": "x"}}).unwrap()
    assert digest == fingerprint({"a": [1, "\u00e9"], "f": {"hash": "x"}}).unwrap()
    record = {"a": [1, "\u00e9"], "f": {"hash": "x"}, "hash": digest}
    assert line == canonical_json(record).unwrap().encode() + b"\n"


@pytest.mark.parametrize("tag_bits", [None, 1])
def test_repeats_are_refused_before_and_after_they_reach_the_file(
    fd: int, tag_bits: int | None
) -> None:  # FMT-16; one tag bit makes every key collide, so each hit is read back
    chain = _chain(fd, tag_bits)
    first = _sealed(chain.seal(make_body(1)))
    chain.accept(first, os.fstat(fd).st_size)  # accepted, not yet written
    assert _refusal(chain.seal(make_body(1, request_tag="other"))) == (
        "interaction sequence 1 was already written"
    )
    again = make_body(2, request_tag="request-1")  # same call key and group as the first
    assert _refusal(chain.seal(again)) == 'interaction call key "root/audit-' + (
        first.interaction.call_key.split("audit-")[1] + '" was already written'
    )
    os.pwrite(fd, first.line, os.fstat(fd).st_size)
    chain.written()
    assert _refusal(chain.seal(make_body(1, request_tag="other"))) == (
        "interaction sequence 1 was already written"
    )
    second = _sealed(chain.seal(make_body(2, parent_key="p2", request_tag="request-1")))
    _write(fd, chain, second)
    third = make_body(3, parent_key="p2", request_tag="request-1")
    assert _refusal(chain.seal(third)).startswith("interaction call key")
    other_key = make_body(3, parent_key="p2", request_tag="request-1", occurrence=2)
    assert isinstance(chain.seal(other_key), Success)
    assert _refusal(chain.seal(make_body(4, storage="full"))) == (
        'interaction request.storage must match header.requestStorage "metadata"'
    )


def test_a_resumed_chain_links_after_the_files_last_record(fd: int, tmp_path: Path) -> None:
    chain = _chain(fd)
    for sequence in (1, 2, 3):
        _write(fd, chain, _sealed(chain.seal(make_body(sequence))))
    resumed = _chain(fd)
    assert resumed.previous_hash == chain.previous_hash
    assert _refusal(resumed.seal(make_body(2, request_tag="new"))) == (
        "interaction sequence 2 was already written"
    )
    _write(fd, resumed, _sealed(resumed.seal(make_body(4))))
    assert verify_file(tmp_path / "c.cassette.jsonl")["interactions"] == 4


def test_resuming_a_file_that_is_no_cassette_is_its_first_problem(tmp_path: Path) -> None:
    handle = os.open(tmp_path / "bad.jsonl", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        os.write(handle, b'{"kind":"x"}\n')
        assert isinstance(WriterChain.resume(handle), Failure)
        os.ftruncate(handle, 0)
        assert str(WriterChain.resume(handle).failure()) == "cassette is empty"
    finally:
        os.close(handle)


def test_the_state_kept_per_written_call_is_at_most_64_bytes(fd: int) -> None:
    # issue 26: a long recording keeps no record, line or key string once a line is written
    chain = _chain(fd)
    count = 2_000
    bodies = [make_body(sequence) for sequence in range(1, count + 1)]
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    offset = os.fstat(fd).st_size
    for body in bodies:
        sealed = _sealed(chain.seal(body))
        chain.accept(sealed, offset)
        os.pwrite(fd, sealed.line, offset)
        offset += len(sealed.line)
        chain.written()
    del sealed
    gc.collect()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    kept = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert kept / count <= 64, kept / count
