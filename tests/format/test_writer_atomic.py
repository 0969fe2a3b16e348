"""Atomic recording and a writer that never loses a complete line (issue 12, WRITE-3/7/8/9).

`create` and `truncate` fill `<target>.partial-<pid>-<token>` and rename it over the target
only on a clean close; `append` writes in place. A failed write is cut back to the last
complete record, and a file replaced, removed or truncated under the writer stops it loudly.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import multiprocessing
import os
import re
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassette_format import (
    CassetteFormatError,
    CassetteWriter,
    WriteMode,
    load_cassette,
    parse_cassette,
    verify_file,
    writer_lock_path,
)
from cassette_format.write.partial import partial_recording, partial_siblings
from returns.result import Success
from support.tmpfs import small_tmpfs

from format import writer_atomic_children
from format.builders import make_body, make_header

_PARTIAL_NAME = re.compile(r"c\.cassette\.jsonl\.partial-[0-9]+-[0-9a-f]{8}")


async def _committed(path: Path, count: int) -> bytes:
    """A cleanly closed cassette of `count` interactions; its bytes."""
    async with await CassetteWriter.open(path, make_header(), "create") as writer:
        for sequence in range(1, count + 1):
            await writer.append(make_body(sequence, request_tag=f"committed-{sequence}"))
    return path.read_bytes()


def _only_partial(path: Path) -> Path:
    """The single partial recording beside `path`."""
    (partial,) = partial_siblings(str(path))
    assert partial.target == os.path.realpath(path)
    assert partial.pid > 0
    return Path(partial.path)


async def test_clean_truncate_renames_the_partial_over_the_target(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    before = await _committed(path, 2)
    path.chmod(0o600)
    inode = path.stat().st_ino
    writer = await CassetteWriter.open(path, make_header(), "truncate")
    partial_path = writer.partial_path  # a local: close() below must clear the attribute
    assert partial_path is not None
    partial = Path(partial_path)
    assert partial.parent == tmp_path
    assert _PARTIAL_NAME.fullmatch(partial.name)
    await writer.append(make_body(1, request_tag="new"))
    assert path.read_bytes() == before  # nothing reaches the target before close
    await writer.close()
    assert verify_file(path)["interactions"] == 1
    assert load_cassette(path).interactions[0].sequence == 1
    assert not partial.exists()
    assert writer.partial_path is None
    assert partial_siblings(str(path)) == ()
    assert path.stat().st_ino != inode  # replaced by rename, not rewritten in place
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # the replaced file's mode is kept
    assert not os.path.exists(writer_lock_path(str(path)))


async def test_clean_create_appears_only_at_close(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    await writer.append(make_body(1))
    assert not path.exists()
    assert writer.partial_path is not None
    assert Path(writer.partial_path).exists()
    await writer.close()
    assert verify_file(path)["interactions"] == 1
    assert partial_siblings(str(path)) == ()


async def _record_then_fail(path: Path, mode: WriteMode) -> None:
    async with await CassetteWriter.open(path, make_header(), mode) as writer:
        await writer.append(make_body(1, request_tag="interrupted"))
        raise RuntimeError("harness failed")


@pytest.mark.parametrize("mode", ["create", "truncate"])
async def test_an_exception_keeps_the_committed_cassette(tmp_path: Path, mode: WriteMode) -> None:
    path = tmp_path / "c.cassette.jsonl"
    before = await _committed(path, 3) if mode == "truncate" else None
    with pytest.raises(RuntimeError, match="harness failed"):
        await _record_then_fail(path, mode)
    if before is None:
        assert not path.exists()
    else:
        assert path.read_bytes() == before
    partial = _only_partial(path)
    assert verify_file(partial)["interactions"] == 1  # every complete line is kept
    assert not os.path.exists(writer_lock_path(str(path)))


async def test_abandon_keeps_the_committed_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    before = await _committed(path, 1)
    writer = await CassetteWriter.open(path, make_header(), "truncate")
    await writer.append(make_body(1, request_tag="abandoned"))
    await writer.abandon()
    await writer.close()  # idempotent: still nothing committed
    assert path.read_bytes() == before
    assert verify_file(_only_partial(path))["interactions"] == 1


@pytest.mark.parametrize("mode", ["create", "truncate"])
def test_sigkill_leaves_the_committed_cassette_and_a_partial(
    tmp_path: Path, mode: WriteMode
) -> None:
    path = tmp_path / "c.cassette.jsonl"
    before: bytes | None = None
    if mode == "truncate":
        before = asyncio.run(_committed(path, 2))
    context = multiprocessing.get_context("spawn")
    progress = context.Queue()
    child = context.Process(
        target=writer_atomic_children.record_until_killed, args=(str(path), mode, progress)
    )
    child.start()
    while progress.get(timeout=60) < 10:
        pass
    assert child.pid is not None
    os.kill(child.pid, signal.SIGKILL)
    child.join(timeout=60)
    if before is None:
        assert not path.exists()
    else:
        assert path.read_bytes() == before
    partial = _only_partial(path)
    assert partial_recording(str(partial)) is not None
    data = partial.read_bytes()
    prefix = parse_cassette(data[: data.rfind(b"\n") + 1])
    assert isinstance(prefix, Success)
    assert len(prefix.unwrap().interactions) >= 10


async def test_append_writes_in_place(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    await _committed(path, 1)
    inode = path.stat().st_ino
    writer = await CassetteWriter.open(path, make_header(), "append")
    assert writer.partial_path is None
    await writer.append(make_body(2))
    assert verify_file(path)["interactions"] == 2  # already on disk before close
    await writer.close()
    assert path.stat().st_ino == inode
    assert partial_siblings(str(path)) == ()


async def test_create_refuses_a_target_that_appears_while_recording(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    await writer.append(make_body(1))
    path.write_bytes(b"someone else's file\n")
    with pytest.raises(CassetteFormatError) as refused:
        await writer.close()
    assert refused.value.message.startswith(f'cannot commit cassette "{path}"')
    assert "created by someone else" in refused.value.message
    assert path.read_bytes() == b"someone else's file\n"
    assert verify_file(_only_partial(path))["interactions"] == 1
    assert not os.path.exists(writer_lock_path(str(path)))


async def test_truncate_through_a_symlink_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "store" / "c.cassette.jsonl"
    real.parent.mkdir()
    await _committed(real, 2)
    link = tmp_path / "link.cassette.jsonl"
    link.symlink_to(real)
    async with await CassetteWriter.open(link, make_header(), "truncate") as writer:
        assert writer.partial_path is not None
        assert Path(writer.partial_path).parent == real.parent
        await writer.append(make_body(1))
    assert link.is_symlink()
    assert verify_file(real)["interactions"] == 1


async def test_truncate_refuses_a_directory_target(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    path.mkdir()
    with pytest.raises(CassetteFormatError) as refused:
        await CassetteWriter.open(path, make_header(), "truncate")
    assert refused.value.message == f'cannot open cassette "{path}" in truncate mode'
    assert not os.path.exists(writer_lock_path(str(path)))


@pytest.mark.parametrize("mode", ["append", "truncate"])
async def test_a_failed_write_is_cut_back_to_the_last_complete_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: WriteMode
) -> None:
    from cassette_format.write import safe_files
    from cassette_format.write import writer as writer_module

    path = tmp_path / "c.cassette.jsonl"
    before = await _committed(path, 2)
    writer = await CassetteWriter.open(path, make_header(), mode)
    await writer.append(make_body(writer.next_sequence, request_tag="kept"))
    real_write_all = safe_files.write_all

    def tearing(fd: int, data: bytes) -> None:
        real_write_all(fd, data[: len(data) // 2])  # a torn line, then the disk is full
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writer_module, "write_all", tearing)
    with pytest.raises(CassetteFormatError) as failed:
        await writer.append(make_body(writer.next_sequence + 1, request_tag="torn"))
    message = failed.value.message
    assert message.startswith(f'cannot write cassette "{path}"')
    assert "cut back to its last complete record" in message
    assert isinstance(failed.value.__cause__, OSError)
    with pytest.raises(CassetteFormatError) as closing:
        await writer.close()
    assert closing.value is failed.value  # WRITE-8: the first error, loudly, at close too
    written = path if mode == "append" else _only_partial(path)
    assert written.read_bytes().endswith(b"\n")
    expected = 3 if mode == "append" else 1
    assert verify_file(written)["interactions"] == expected
    if mode == "truncate":
        assert path.read_bytes() == before


@contextlib.contextmanager
def _swapped(path: Path) -> Iterator[Path]:
    """Put another file at `path` (a rename, as an editor or a second tool would)."""
    intruder = path.with_name("intruder")
    intruder.write_bytes(b"not ours\n")
    os.replace(intruder, path)
    yield path


@pytest.mark.parametrize("mode", ["append", "truncate"])
async def test_a_replaced_path_stops_the_writer(tmp_path: Path, mode: WriteMode) -> None:
    path = tmp_path / "c.cassette.jsonl"
    await _committed(path, 1)
    writer = await CassetteWriter.open(path, make_header(), mode)
    await writer.append(make_body(writer.next_sequence))
    named = Path(writer.partial_path) if writer.partial_path is not None else path
    with _swapped(named):
        with pytest.raises(CassetteFormatError) as stopped:
            await writer.append(make_body(writer.next_sequence + 1, request_tag="after"))
        assert "no longer names the file this writer opened" in stopped.value.message
        assert f'"{path}"' in stopped.value.message
        with pytest.raises(CassetteFormatError) as closing:
            await writer.close()
        assert closing.value is stopped.value
    assert named.read_bytes() == b"not ours\n"  # the other file is left alone
    if mode == "truncate":
        assert verify_file(path)["interactions"] == 1  # and nothing was committed


async def test_a_replaced_path_is_caught_at_close(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    await _committed(path, 1)
    writer = await CassetteWriter.open(path, make_header(), "append")
    with _swapped(path), pytest.raises(CassetteFormatError, match="no longer names the file"):
        await writer.close()


@pytest.mark.parametrize("mode", ["append", "create"])
async def test_truncation_under_the_writer_stops_it(tmp_path: Path, mode: WriteMode) -> None:
    path = tmp_path / "c.cassette.jsonl"
    if mode == "append":
        await _committed(path, 2)
    writer = await CassetteWriter.open(path, make_header(), mode)
    await writer.append(make_body(writer.next_sequence))
    named = Path(writer.partial_path) if writer.partial_path is not None else path
    os.truncate(named, named.stat().st_size - 10)
    with pytest.raises(CassetteFormatError) as stopped:
        await writer.append(make_body(writer.next_sequence + 1, request_tag="after"))
    assert "changed size under its writer" in stopped.value.message
    assert "another process truncated or wrote it" in stopped.value.message
    with pytest.raises(CassetteFormatError):
        await writer.close()
    assert not path.exists() or mode == "append"  # create committed nothing


async def test_a_removed_partial_stops_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    assert writer.partial_path is not None
    os.unlink(writer.partial_path)
    with pytest.raises(CassetteFormatError, match="was removed while being written"):
        await writer.append(make_body(1))
    with pytest.raises(CassetteFormatError):
        await writer.close()
    assert not path.exists()


def _past_limit(path: Path, mode: WriteMode, headroom: int) -> tuple[int, str, str]:
    """Run the RLIMIT_FSIZE child on `path`; what it reports."""
    size = path.stat().st_size if path.exists() else 0
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    child = context.Process(
        target=writer_atomic_children.append_past_file_size_limit,
        args=(str(path), mode, size + headroom, results),
    )
    child.start()
    outcome: tuple[int, str, str] = results.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0
    return outcome


async def test_file_size_limit_mid_append_keeps_every_complete_record(tmp_path: Path) -> None:
    """The portable "disk fills mid-append": EFBIG past RLIMIT_FSIZE in a child process."""
    path = tmp_path / "c.cassette.jsonl"
    await _committed(path, 3)
    written, failure, closing = _past_limit(path, "append", 5_000)
    assert written >= 1
    assert failure.startswith(f'cannot write cassette "{path}"')
    assert "cut back to its last complete record" in failure
    assert closing == failure
    assert verify_file(path)["interactions"] == 3 + written
    assert path.read_bytes().endswith(b"\n")
    async with await CassetteWriter.open(path, make_header(), "append") as writer:
        await writer.append(make_body(writer.next_sequence, request_tag="after-limit"))
    assert verify_file(path)["interactions"] == 4 + written  # appending goes on later


def test_file_size_limit_during_create_leaves_a_verifying_partial(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    written, failure, _ = _past_limit(path, "create", 5_000)
    assert written >= 1
    assert "cut back to its last complete record" in failure
    assert not path.exists()
    assert verify_file(_only_partial(path))["interactions"] == written


async def _fill(writer: CassetteWriter) -> tuple[int, CassetteFormatError]:
    """Append until the writer refuses; how many landed and the refusal."""
    first = writer.next_sequence
    for sequence in range(first, first + 10_000):
        try:
            await writer.append(make_body(sequence, request_tag=f"fill-{sequence}"))
        except CassetteFormatError as error:
            return sequence - first, error
    raise AssertionError("the small file system never filled")


@pytest.mark.parametrize("mode", ["append", "create", "truncate"])
async def test_a_full_tmpfs_mid_append_keeps_every_complete_record(
    tmp_path: Path, mode: WriteMode
) -> None:
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        path = disk / "c.cassette.jsonl"
        before = await _committed(path, 2) if mode != "create" else None
        writer = await CassetteWriter.open(path, make_header(), mode)
        written, full = await _fill(writer)
        assert written >= 1
        assert f'cannot write cassette "{path}"' in full.message
        assert "cut back to its last complete record" in full.message
        assert isinstance(full.__cause__, OSError)
        assert full.__cause__.errno == errno.ENOSPC
        with pytest.raises(CassetteFormatError):
            await writer.close()
        if mode == "append":
            assert verify_file(path)["interactions"] == 2 + written
        else:
            assert verify_file(_only_partial(path))["interactions"] == written
            if before is None:
                assert not path.exists()
            else:
                assert path.read_bytes() == before


@pytest.mark.parametrize("intruder", [False, True])
async def test_create_without_hard_links_still_never_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, intruder: bool
) -> None:
    """On a file system without link(2), create checks the name and renames."""
    from cassette_format.write import writer as writer_module

    def no_links(source: str, destination: str) -> None:
        raise OSError(errno.EPERM, os.strerror(errno.EPERM), source)

    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    await writer.append(make_body(1))
    monkeypatch.setattr(f"{writer_module.__name__}.os.link", no_links)
    if not intruder:
        await writer.close()
        assert verify_file(path)["interactions"] == 1
        assert partial_siblings(str(path)) == ()
        return
    path.write_bytes(b"someone else's file\n")
    with pytest.raises(CassetteFormatError, match="created by someone else"):
        await writer.close()
    assert path.read_bytes() == b"someone else's file\n"
    assert verify_file(_only_partial(path))["interactions"] == 1
