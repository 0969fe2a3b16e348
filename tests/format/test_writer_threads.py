"""The writer from any thread and any event loop, and from sync code (issue 27, WRITE-7..9).

Each test runs under a pytest timeout: a deadlock fails it instead of hanging the run.
Nothing here measures time.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from cassette_format import (
    CassetteFormatError,
    CassetteInteraction,
    CassetteWriter,
    load_cassette,
    verify_file,
)

from format.builders import make_body, make_header

pytestmark = pytest.mark.timeout(120, method="thread")  # a deadlock ends the run loudly

PER_THREAD = 6


def _assert_one_chain(path: Path, count: int) -> None:
    """The committed file verifies, links every record to the one before, holds 1..count."""
    assert verify_file(path)["interactions"] == count
    cassette = load_cassette(path)
    hashes = [cassette.header.hash] + [i.hash for i in cassette.interactions]
    assert [i.previous_hash for i in cassette.interactions] == hashes[:-1]
    assert sorted(i.sequence for i in cassette.interactions) == list(range(1, count + 1))


def _own_loop_appends(writer: CassetteWriter, sequences: list[int]) -> list[int]:
    """One thread's harness: its own `asyncio.run`, appending concurrently on that loop."""

    async def run() -> list[CassetteInteraction]:
        return await asyncio.gather(*(writer.append(make_body(s)) for s in sequences))

    return [record.sequence for record in asyncio.run(run())]


@pytest.mark.parametrize("threads", [2, 8, 32])
def test_threads_each_with_their_own_event_loop_record_one_chain(
    tmp_path: Path, threads: int
) -> None:
    path = tmp_path / "threads.cassette.jsonl"
    total = threads * PER_THREAD
    shares = [list(range(first, total + 1, threads)) for first in range(1, threads + 1)]
    writer = CassetteWriter.open_blocking(path, make_header(), "create")
    barrier = threading.Barrier(threads)

    def harness(share: list[int]) -> list[int]:
        barrier.wait()  # every thread's loop appends at once
        return _own_loop_appends(writer, share)

    with ThreadPoolExecutor(threads) as pool:
        landed = list(pool.map(harness, shares))
    writer.close_blocking()
    assert landed == shares  # every append got its own record back
    _assert_one_chain(path, total)


def test_sequential_asyncio_runs_share_one_writer(tmp_path: Path) -> None:
    path = tmp_path / "sequential.cassette.jsonl"
    writer = asyncio.run(CassetteWriter.open(path, make_header(), "create"))
    for first in (1, 4, 7):
        assert _own_loop_appends(writer, [first, first + 1, first + 2]) == [
            first,
            first + 1,
            first + 2,
        ]
    asyncio.run(writer.close())
    _assert_one_chain(path, 9)


def test_sync_and_async_appends_mix_across_threads(tmp_path: Path) -> None:
    path = tmp_path / "mixed.cassette.jsonl"
    threads = 8
    total = threads * PER_THREAD
    shares = [list(range(first, total + 1, threads)) for first in range(1, threads + 1)]
    writer = CassetteWriter.open_blocking(path, make_header(), "create")
    barrier = threading.Barrier(threads)

    def harness(index: int) -> list[int]:
        barrier.wait()
        if index % 2:
            return _own_loop_appends(writer, shares[index])
        return [writer.append_blocking(make_body(s)).sequence for s in shares[index]]

    with ThreadPoolExecutor(threads) as pool:
        landed = list(pool.map(harness, range(threads)))
    asyncio.run(writer.close())
    assert landed == shares
    _assert_one_chain(path, total)


def test_the_sync_api_opens_appends_and_commits(tmp_path: Path) -> None:
    path = tmp_path / "sync.cassette.jsonl"
    with CassetteWriter.open_blocking(path, make_header(), "create") as writer:
        assert [writer.append_blocking(make_body(s)).sequence for s in (1, 2, 3)] == [1, 2, 3]
        assert not path.exists()  # create: the target appears only at the clean close
    _assert_one_chain(path, 3)
    with CassetteWriter.open_blocking(path, make_header(), "append") as writer:
        writer.append_blocking(make_body(writer.next_sequence))
    _assert_one_chain(path, 4)


def test_an_exception_in_the_sync_block_commits_nothing(tmp_path: Path) -> None:
    path = tmp_path / "sync-failed.cassette.jsonl"
    writer = CassetteWriter.open_blocking(path, make_header(), "create")

    def harness() -> None:
        with writer:
            writer.append_blocking(make_body(1))
            raise RuntimeError("harness failed")

    with pytest.raises(RuntimeError, match="harness failed"):
        harness()
    assert not path.exists()
    assert writer.partial_path is not None
    assert verify_file(writer.partial_path)["interactions"] == 1


def test_sync_abandon_keeps_the_target(tmp_path: Path) -> None:
    path = tmp_path / "abandoned.cassette.jsonl"
    writer = CassetteWriter.open_blocking(path, make_header(), "create")
    writer.append_blocking(make_body(1))
    writer.abandon_blocking()
    assert not path.exists()
    with pytest.raises(CassetteFormatError, match=r"^cassette writer is closed$"):
        writer.append_blocking(make_body(2))


def test_closes_from_many_threads_do_the_work_once_and_agree(tmp_path: Path) -> None:
    path = tmp_path / "closes.cassette.jsonl"
    writer = CassetteWriter.open_blocking(path, make_header(), "create")
    writer.append_blocking(make_body(1))
    with pytest.raises(CassetteFormatError):
        writer.append_blocking(make_body(1, request_tag="again"))  # poisons (WRITE-8)
    barrier = threading.Barrier(8)

    def close() -> BaseException | None:
        barrier.wait()
        try:
            asyncio.run(writer.close())
        except CassetteFormatError as error:
            return error
        return None

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(lambda _: close(), range(8)))
    first = outcomes[0]
    assert isinstance(first, CassetteFormatError)
    assert all(outcome is first for outcome in outcomes)  # WRITE-9: one outcome, every caller
    assert str(first) == "interaction sequence 1 was already written"
    assert not path.exists()


def test_appends_racing_a_close_either_land_or_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "racing-close.cassette.jsonl"
    writer = CassetteWriter.open_blocking(path, make_header(), "create")
    barrier = threading.Barrier(5)

    def append(sequence: int) -> int | str:
        barrier.wait()
        try:
            return writer.append_blocking(make_body(sequence)).sequence
        except CassetteFormatError as error:
            return str(error)

    def close() -> None:
        barrier.wait()
        writer.close_blocking()

    with ThreadPoolExecutor(5) as pool:
        landed = [pool.submit(append, s) for s in range(1, 5)]
        pool.submit(close).result()
        results = [future.result() for future in landed]
    written = [s for s in results if isinstance(s, int)]
    assert {s for s in results if isinstance(s, str)} <= {"cassette writer is closed"}
    lines = path.read_bytes().splitlines()  # committed: the header and every append that landed
    assert len(lines) == 1 + len(written)
