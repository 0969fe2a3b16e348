"""The writer under real processes, concurrency, crashes and reference files (WRITE-1..10)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import multiprocessing
import os
import shutil
import signal
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cassette_format import (
    CassetteFormatError,
    CassetteWriter,
    create_header,
    load_cassette,
    parse_cassette,
    verify_file,
    writer_lock_path,
)
from cassette_format.write.partial import partial_siblings
from returns.result import Failure, Success
from support.paths import INTEROP

from format import writer_children
from format.builders import make_body, make_header

LOCK_SUFFIX = (
    "; another writer may be active "
    "(remove a stale lock only after confirming no writer is using it)"
)


def test_two_processes_race_exactly_one_wins(tmp_path: Path) -> None:  # WRITE-2
    path = str(tmp_path / "race.cassette.jsonl")
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(2)
    release = context.Event()
    results = context.Queue()
    children = [
        context.Process(target=writer_children.race_to_open, args=(path, barrier, release, results))
        for _ in range(2)
    ]
    for child in children:
        child.start()
    outcomes = sorted([results.get(timeout=60), results.get(timeout=60)])
    release.set()
    for child in children:
        child.join(timeout=60)
        assert child.exitcode == 0
    lock = writer_lock_path(path)
    lost, won = outcomes
    assert won == "won"
    # WRITE-2's message, then the holder it names (issue 12)
    assert lost.startswith("lost:" + f'cannot acquire cassette writer lock "{lock}"{LOCK_SUFFIX}')
    assert "; held by " in lost  # the holder's pid, or "a writer still starting (pid …)"
    assert not os.path.exists(lock)
    assert verify_file(path)["interactions"] == 1


async def test_eight_tasks_append_one_unbroken_chain(tmp_path: Path) -> None:  # WRITE-7, FMT-15
    path = tmp_path / "concurrent.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")

    async def task(first: int) -> None:
        for sequence in range(first, 1001, 8):
            await writer.append(make_body(sequence, kind="result"))

    await asyncio.gather(*(task(first) for first in range(1, 9)))
    await writer.close()
    summary = verify_file(path)
    assert summary["interactions"] == 1000
    cassette = load_cassette(path)
    hashes = [cassette.header.hash] + [i.hash for i in cassette.interactions]
    assert [i.previous_hash for i in cassette.interactions] == hashes[:-1]
    assert sorted(i.sequence for i in cassette.interactions) == list(range(1, 1001))


def test_sigkill_leaves_a_parseable_prefix(tmp_path: Path) -> None:  # WRITE-9, FMT-18
    path = str(tmp_path / "killed.cassette.jsonl")
    context = multiprocessing.get_context("spawn")
    progress = context.Queue()
    child = context.Process(target=writer_children.append_until_killed, args=(path, progress))
    child.start()
    while progress.get(timeout=60) < 20:
        pass
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join(timeout=60)
    assert not os.path.exists(path)  # create mode: the target appears only on a clean close
    (partial,) = partial_siblings(path)
    data = Path(partial.path).read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    prefix = parse_cassette(complete)
    assert isinstance(prefix, Success)
    assert len(prefix.unwrap().interactions) >= 20
    # A torn final write: the partial tail is a format error naming its line, never accepted.
    lines = complete.splitlines(keepends=True)
    torn = b"".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2]
    result = parse_cassette(torn)
    assert isinstance(result, Failure)
    assert result.failure().message == f"line {len(lines)} is not valid JSON"


REFERENCE_VALID = [
    case["name"]
    for case in json.loads((INTEROP / "manifest.json").read_text("utf-8"))["cases"]
    if case["type"] == "cassette" and case["verdict"] == "valid"
]


@pytest.mark.parametrize("name", REFERENCE_VALID)
async def test_append_continues_a_reference_chain(tmp_path: Path, name: str) -> None:  # WRITE-4/5
    path = tmp_path / f"{name}.cassette.jsonl"
    shutil.copy(INTEROP / "cassettes" / f"{name}.cassette.jsonl", path)
    existing = load_cassette(path).header
    requested = create_header(
        cassette=existing.provider.cassette,
        upstream=existing.provider.upstream,
        capabilities=existing.provider.capabilities,
        inherits_parent_context=existing.provider.inherits_parent_context,
        request_storage=existing.request_storage,
        redact_secrets=existing.redact_secrets,
        redaction_patterns=existing.redaction_patterns,
        cassette_id="00000000-0000-4000-8000-00000000000a",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    ).unwrap()
    async with await CassetteWriter.open(path, requested, "append") as writer:
        assert writer.header == existing
        before = len(writer.existing_interactions)
        sequence = writer.next_sequence
        await writer.append(
            make_body(sequence, storage=existing.request_storage, request_tag=f"py-{name}")
        )
    cassette = load_cassette(path)
    assert len(cassette.interactions) == before + 1
    assert cassette.interactions[-1].sequence == sequence


async def test_second_writer_in_process_fails_with_lock_message(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    async with await CassetteWriter.open(path, make_header(), "create"):
        with pytest.raises(CassetteFormatError, match="another writer may be active"):
            await CassetteWriter.open(path, make_header(), "truncate")
    assert not os.path.exists(writer_lock_path(str(path)))


async def test_create_refuses_existing_file(tmp_path: Path) -> None:  # WRITE-3
    path = tmp_path / "c.cassette.jsonl"
    path.write_text("x")
    with pytest.raises(CassetteFormatError) as caught:
        await CassetteWriter.open(path, make_header(), "create")
    assert caught.value.message == f'cannot open cassette "{path}" in create mode'
    assert not os.path.exists(writer_lock_path(str(path)))


async def test_append_to_empty_file_fails(tmp_path: Path) -> None:  # WRITE-3, GAP-22
    path = tmp_path / "c.cassette.jsonl"
    path.write_bytes(b"")
    with pytest.raises(CassetteFormatError, match=r"^cassette is empty$"):
        await CassetteWriter.open(path, make_header(), "append")


async def test_append_policy_mismatch_names_first_field(tmp_path: Path) -> None:  # WRITE-4
    path = tmp_path / "c.cassette.jsonl"
    async with await CassetteWriter.open(path, make_header(), "create"):
        pass
    with pytest.raises(CassetteFormatError) as caught:
        await CassetteWriter.open(path, make_header("full"), "append")
    assert caught.value.message == (
        "cannot append: existing header requestStorage differs from configured value"
    )


async def test_missing_append_target_is_created(tmp_path: Path) -> None:  # WRITE-3
    path = tmp_path / "deep" / "new.cassette.jsonl"
    async with await CassetteWriter.open(path, make_header(), "append") as writer:
        await writer.append(make_body(1))
    assert verify_file(path)["interactions"] == 1


async def test_trailing_newline_is_repaired(tmp_path: Path) -> None:  # WRITE-5
    path = tmp_path / "c.cassette.jsonl"
    async with await CassetteWriter.open(path, make_header(), "create") as writer:
        await writer.append(make_body(1))
    path.write_bytes(path.read_bytes().rstrip(b"\n"))
    async with await CassetteWriter.open(path, make_header(), "append") as writer:
        await writer.append(make_body(2))
    assert verify_file(path)["interactions"] == 2


async def test_duplicates_refused_and_writer_poisoned(tmp_path: Path) -> None:  # WRITE-8
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    await writer.append(make_body(1))
    with pytest.raises(CassetteFormatError) as caught:
        await writer.append(make_body(1, request_tag="other"))
    assert caught.value.message == "interaction sequence 1 was already written"
    with pytest.raises(CassetteFormatError) as again:
        await writer.append(make_body(2))
    assert again.value is caught.value
    with pytest.raises(CassetteFormatError) as closing:
        await writer.close()
    assert closing.value is caught.value
    with pytest.raises(CassetteFormatError) as closing_again:
        await writer.close()  # idempotent: the same outcome as the first close
    assert closing_again.value is caught.value
    with pytest.raises(CassetteFormatError, match=r"^cassette writer is closed$"):
        await writer.append(make_body(3))
    assert not path.exists()  # a poisoned recording is not committed; its prefix stays
    assert writer.partial_path is not None
    assert verify_file(writer.partial_path)["interactions"] == 1


async def test_duplicate_call_key_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    await writer.append(make_body(1, request_tag="same"))
    with pytest.raises(CassetteFormatError, match="call key"):
        await writer.append(make_body(2, request_tag="same"))
    with pytest.raises(CassetteFormatError):
        await writer.close()
    assert writer.partial_path is not None
    assert verify_file(writer.partial_path)["interactions"] == 1


async def test_invalid_interaction_never_reaches_disk(tmp_path: Path) -> None:  # WRITE-7
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    body = make_body(1, kind="start-error")
    bad: Any = dataclasses.replace(body, published=True)
    with pytest.raises(CassetteFormatError, match=r"^line 2 start-error must be unpublished$"):
        await writer.append(bad)
    with pytest.raises(CassetteFormatError):
        await writer.close()
    assert writer.partial_path is not None
    assert len(Path(writer.partial_path).read_bytes().splitlines()) == 1


def test_invalid_header_touches_nothing(tmp_path: Path) -> None:  # WRITE-1
    header = make_header()
    tampered = dataclasses.replace(header, hash="x")
    path = tmp_path / "sub" / "c.cassette.jsonl"
    with pytest.raises(CassetteFormatError, match=r"^header.hash must be a lowercase SHA-256"):
        CassetteWriter.open_blocking(path, tampered, "create")
    assert not (tmp_path / "sub").exists()


async def test_concurrent_appends_each_get_their_own_record_in_call_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # WRITE-7: one line per append, in the order the appends ran, no thread hop
    from cassette_format.write import safe_files
    from cassette_format.write import writer as writer_module

    writes: list[int] = []
    real_write_all = safe_files.write_all

    def counting(fd: int, data: bytes) -> None:
        writes.append(data.count(b"\n"))
        real_write_all(fd, data)

    path = tmp_path / "ordered.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    monkeypatch.setattr(writer_module, "write_all", counting)
    sealed = await asyncio.gather(*(writer.append(make_body(s)) for s in range(1, 201)))
    await writer.close()
    assert [i.sequence for i in sealed] == list(range(1, 201))  # each caller its own record
    assert writes == [1] * 200
    cassette = load_cassette(path)
    assert [i.sequence for i in cassette.interactions] == list(range(1, 201))


async def test_a_bad_append_inside_a_batch_stops_only_what_follows(tmp_path: Path) -> None:
    # WRITE-7, WRITE-8: earlier appends of the batch land; it and later ones get its error
    path = tmp_path / "poisoned-batch.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    bodies = [make_body(s) for s in range(1, 6)]
    bodies[2] = make_body(1, request_tag="again")  # sequence 1 a second time
    outcomes = await asyncio.gather(*(writer.append(b) for b in bodies), return_exceptions=True)
    assert [getattr(o, "sequence", None) for o in outcomes[:2]] == [1, 2]
    errors = outcomes[2:]
    assert all(isinstance(error, CassetteFormatError) for error in errors)
    assert all(error is errors[0] for error in errors)
    assert str(errors[0]) == "interaction sequence 1 was already written"
    with pytest.raises(CassetteFormatError):
        await writer.close()
    assert writer.partial_path is not None
    assert verify_file(writer.partial_path)["interactions"] == 2


async def test_an_unexpected_failure_fails_only_its_own_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # WRITE-7: nothing is sealed for it, the chain goes on
    path = tmp_path / "odd.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    real_chain = writer._chain
    odd = make_body(2)

    class OddChain:
        """The writer's chain, except that sealing `odd` raises."""

        def seal(self, body: Any) -> Any:
            if body is odd:
                raise RuntimeError("odd body")
            return real_chain.seal(body)

        def __getattr__(self, name: str) -> Any:
            return getattr(real_chain, name)

    monkeypatch.setattr(writer, "_chain", OddChain())
    bodies = [make_body(1), odd, make_body(2, request_tag="retry")]
    outcomes = await asyncio.gather(*(writer.append(b) for b in bodies), return_exceptions=True)
    assert isinstance(outcomes[1], RuntimeError)
    monkeypatch.setattr(writer, "_chain", real_chain)
    await writer.close()
    assert verify_file(path)["interactions"] == 2


async def test_an_append_cancelled_before_it_ran_is_not_written(tmp_path: Path) -> None:
    # WRITE-8: a caller that gives up before its append ran leaves nothing behind
    path = tmp_path / "cancelled.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    queued = asyncio.ensure_future(writer.append(make_body(1)))
    queued.cancel()
    with pytest.raises(asyncio.CancelledError):
        await queued
    again = await writer.append(make_body(1, request_tag="after"))  # sequence 1 is still free
    assert again.sequence == 1
    await writer.close()
    assert verify_file(path)["interactions"] == 1
