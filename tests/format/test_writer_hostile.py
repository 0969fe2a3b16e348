"""The writer on a hostile file system and at the reader's bounds (issue 26, WRITE-2/3/7).

Forked children take locks and die by SIGKILL; they report through pipes, nothing waits on
a clock.
"""

from __future__ import annotations

import dataclasses
import os
import signal
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cassette_format import (
    CassetteFormatError,
    CassetteWriter,
    ResultErrorOutcome,
    ResultOutcome,
    load_cassette,
    verify_file,
    writer_lock_path,
)
from cassette_format.read.lines import MAX_LINE_BYTES
from cassette_format.read.tail_seal import seal_path
from cassette_format.records.frozen_json import freeze_object
from cassette_format.write.lock import FLOCK_SUFFIX, StaleWriterLockWarning, acquire_writer_lock
from cassette_format.write.writer import InteractionRefused

from format.builders import make_body, make_header


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The common default umask, under which a plain `open(..., 0o644)` makes 0644 files."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _mode(path: str | Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


# --- the writer never writes what the reader refuses ------------------------------------


def _huge_result(sequence: int) -> ResultOutcome:
    text = "x" * (MAX_LINE_BYTES + 1)
    return ResultOutcome(
        result=freeze_object(
            {"output": [{"type": "text", "text": text}], "stopReason": "completed"}
        ),
        redactions=0,
    )


def test_a_line_over_the_reader_bound_fails_that_call_only(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    with CassetteWriter.open_blocking(path, make_header(), "create") as writer:
        writer.append_blocking(make_body(1))
        huge = dataclasses.replace(make_body(2), outcome=_huge_result(2))
        with pytest.raises(InteractionRefused) as refused:
            writer.append_blocking(huge)
        assert refused.value.code == "CASSETTE_FORMAT"
        assert refused.value.message.startswith("interaction sequence 2 was not written: its line")
        assert f"longer than the {MAX_LINE_BYTES}-byte line bound" in refused.value.message
        writer.append_blocking(make_body(3))
    assert verify_file(path)["interactions"] == 3
    cassette = load_cassette(path)
    assert [i.outcome.kind for i in cassette.interactions] == ["result", "result-error", "result"]
    substitute = cassette.interactions[1]  # the same call, ended as an error naming the bound
    assert substitute.call_key == huge.call_key
    assert isinstance(substitute.outcome, ResultErrorOutcome)
    assert substitute.outcome.error.name == "InteractionRefused"
    assert substitute.outcome.error.message == refused.value.message
    assert max(len(line) for line in path.read_bytes().splitlines()) <= MAX_LINE_BYTES


async def test_an_async_refusal_does_not_poison_the_writer(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    writer = await CassetteWriter.open(path, make_header(), "create")
    with pytest.raises(InteractionRefused):
        await writer.append(dataclasses.replace(make_body(1), outcome=_huge_result(1)))
    await writer.append(make_body(2))
    await writer.close()
    assert verify_file(path)["interactions"] == 2


# --- no symlink or predictable name is followed ------------------------------------------


def test_a_symlinked_lock_directory_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    elsewhere = tmp_path / "someone-elses"
    elsewhere.mkdir()
    (elsewhere / "keep.json").write_text("{}")
    lock_path = writer_lock_path(str(path))
    os.symlink(elsewhere, lock_path)
    with pytest.raises(CassetteFormatError) as refused:
        CassetteWriter.open_blocking(path, make_header(), "create")
    assert refused.value.code == "CASSETTE_FORMAT"
    assert refused.value.message == (
        f'cannot acquire cassette writer lock "{lock_path}": "{lock_path}" is a symbolic link '
        "and is never followed; remove it if it is not yours"
    )
    assert os.listdir(elsewhere) == ["keep.json"]
    assert os.path.islink(lock_path)
    assert not path.exists()


def test_a_symlinked_name_lock_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    victim = tmp_path / "victim"
    victim.write_text("precious")
    flock_path = os.path.realpath(path) + FLOCK_SUFFIX
    os.symlink(victim, flock_path)
    with pytest.raises(CassetteFormatError, match="is a symbolic link and is never followed"):
        CassetteWriter.open_blocking(path, make_header(), "create")
    assert victim.read_text() == "precious"


def test_a_symlinked_seal_is_replaced_never_written_through(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    victim = tmp_path / "victim"
    victim.write_text("precious")
    os.symlink(victim, seal_path(path))
    with CassetteWriter.open_blocking(path, make_header(), "create") as writer:
        writer.append_blocking(make_body(1))
    assert victim.read_text() == "precious"
    assert not os.path.islink(seal_path(path))
    assert verify_file(path)["interactions"] == 1


# --- modes ---------------------------------------------------------------------------------


@pytest.mark.usefixtures("umask_022")
@pytest.mark.parametrize("mode", ["create", "truncate", "append"])
def test_a_new_cassette_and_its_seal_are_private(tmp_path: Path, mode: str) -> None:
    path = tmp_path / "new.cassette.jsonl"
    with CassetteWriter.open_blocking(path, make_header(), mode) as writer:  # type: ignore[arg-type]
        assert _mode(writer.partial_path or path) == 0o600
        writer.append_blocking(make_body(1))
    assert _mode(path) == 0o600
    assert _mode(seal_path(path)) == 0o600


@pytest.mark.usefixtures("umask_022")
@pytest.mark.parametrize("kept", [0o600, 0o640, 0o664])
def test_truncate_keeps_the_replaced_cassettes_mode(tmp_path: Path, kept: int) -> None:
    path = tmp_path / "c.cassette.jsonl"
    with CassetteWriter.open_blocking(path, make_header(), "create") as writer:
        writer.append_blocking(make_body(1))
    path.chmod(kept)
    with CassetteWriter.open_blocking(path, make_header(), "truncate") as writer:
        writer.append_blocking(make_body(1))
    assert _mode(path) == kept


# --- a dead writer's lock is removed by the next writer --------------------------------


def _killed_while_holding(path: Path, damage: Callable[[str], None] | None = None) -> int:
    """Fork a writer that opens `path`, optionally damages its lock, and is SIGKILLed."""
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            writer = CassetteWriter.open_blocking(path, make_header(), "create")
            writer.append_blocking(make_body(1))
            if damage is not None:
                damage(writer_lock_path(str(path)))
            os.write(report_w, b"ok")
            signal.pause()
        finally:
            os._exit(1)
    assert os.read(report_r, 2) == b"ok"
    os.close(report_r)
    os.close(report_w)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return pid


def _empty(lock_path: str) -> None:
    """As if killed between its `mkdir` and writing its marker."""
    for name in os.listdir(lock_path):
        os.unlink(os.path.join(lock_path, name))


def _torn(lock_path: str) -> None:
    """As if killed half-way through writing its marker."""
    (name,) = os.listdir(lock_path)
    marker = Path(lock_path, name)
    marker.write_bytes(marker.read_bytes()[:10])


@pytest.mark.parametrize("damage", [None, _empty, _torn], ids=["marker", "empty", "torn"])
def test_a_sigkilled_writers_lock_directory_is_removed_by_the_next(
    tmp_path: Path, damage: Callable[[str], None] | None
) -> None:
    path = tmp_path / "c.cassette.jsonl"
    pid = _killed_while_holding(path, damage)
    lock_path = writer_lock_path(str(path))
    os.chmod(lock_path, 0o751)  # tells the dead directory apart (inode numbers are reused)
    with pytest.warns(StaleWriterLockWarning, match=f"held by pid {pid} "):
        writer = CassetteWriter.open_blocking(path, make_header(), "truncate")
    assert _mode(lock_path) != 0o751  # the dead directory was removed and a new one made
    assert len(os.listdir(lock_path)) == 1
    writer.append_blocking(make_body(1))
    writer.close_blocking()
    leftovers = {p.name for p in tmp_path.iterdir() if ".partial-" not in p.name}
    assert leftovers == {path.name, path.name + ".seal"}  # no lock directory, no name lock


def test_a_lock_directory_without_a_provably_dead_owner_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"  # a reference writer between its mkdir and its marker
    lock_path = writer_lock_path(str(path))
    os.mkdir(lock_path)
    with pytest.raises(CassetteFormatError, match="the lock directory holds no owner marker"):
        acquire_writer_lock(str(path))
    assert os.path.isdir(lock_path)


# --- append on a missing path holds the new file's inode --------------------------------


def test_append_to_a_missing_path_holds_the_new_files_inode(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    alias = tmp_path / "alias.cassette.jsonl"
    with CassetteWriter.open_blocking(path, make_header(), "append") as writer:
        writer.append_blocking(make_body(1))
        os.link(path, alias)  # a second name for the file being recorded
        with pytest.raises(CassetteFormatError) as refused:
            CassetteWriter.open_blocking(alias, make_header(), "append")
        assert "through another name (a hard link)" in refused.value.message
        writer.append_blocking(make_body(2))
    assert verify_file(path)["interactions"] == 2
