"""One writer per file, whatever its name: the writer lock (WRITE-2, WRITE-10, issue 12).

Forked children take locks and report through pipes; nothing waits on a clock.
"""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path

import pytest
from cassette_format import CassetteFormatError
from cassette_format.write.lock import (
    FLOCK_SUFFIX,
    StaleWriterLockWarning,
    WriterLock,
    acquire_writer_lock,
    writer_lock_path,
)

ACTIVE = (
    "; another writer may be active "
    "(remove a stale lock only after confirming no writer is using it)"
)


def busy_prefix(path: Path) -> str:
    return f'cannot acquire cassette writer lock "{writer_lock_path(str(path))}"{ACTIVE}; '


def refusal(path: Path) -> str:
    with pytest.raises(CassetteFormatError) as caught:
        acquire_writer_lock(str(path))
    return caught.value.message


def own_start_time() -> int:
    data = Path("/proc/self/stat").read_bytes()
    return int(data[data.rfind(b")") + 1 :].split()[19])


def here(pid: int) -> str:
    return f"pid {pid} on host {json.dumps(socket.gethostname())} since "


def markers(lock: WriterLock) -> list[str]:
    return os.listdir(lock.path)


def test_marker_records_pid_host_boot_and_process_start(tmp_path: Path) -> None:  # WRITE-2
    lock = acquire_writer_lock(str(tmp_path / "a.jsonl"))
    (name,) = markers(lock)
    raw = Path(lock.owner_path).read_text("utf-8")
    document = json.loads(raw)
    assert raw.endswith("\n")
    assert list(document)[:3] == ["ownerToken", "pid", "acquiredAt"]  # the reference's order
    assert name == f"{document['ownerToken']}.json"
    assert document["pid"] == os.getpid()
    assert document["host"] == socket.gethostname()
    assert document["processStart"] == own_start_time()
    assert document["bootId"] == Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    lock.release()


def test_a_second_lock_in_this_process_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    lock = acquire_writer_lock(str(path))
    message = refusal(path)
    assert message.startswith(busy_prefix(path) + "held by " + here(os.getpid()))
    lock.release()
    acquire_writer_lock(str(path)).release()


def test_release_removes_directory_and_name_lock_and_is_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"  # WRITE-10
    lock = acquire_writer_lock(str(path))
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl.writer.flock", "a.jsonl.writer.lock"]
    lock.release()
    lock.release()
    assert os.listdir(tmp_path) == []


def test_a_vanished_marker_leaves_the_directory_failing_closed(tmp_path: Path) -> None:  # GAP-20
    path = tmp_path / "a.jsonl"
    lock = acquire_writer_lock(str(path))
    os.unlink(lock.owner_path)
    lock.release()
    assert os.listdir(lock.path) == []
    assert refusal(path) == busy_prefix(path) + "the lock directory holds no owner marker"


def test_a_symlink_alias_of_an_existing_file_is_the_same_writer(tmp_path: Path) -> None:
    target = tmp_path / "target.jsonl"
    target.write_text("x\n")
    alias = tmp_path / "alias.jsonl"
    alias.symlink_to(target)
    lock = acquire_writer_lock(str(alias))
    assert refusal(target).startswith(busy_prefix(target) + "held by " + here(os.getpid()))
    lock.release()


def test_a_dangling_symlink_and_its_fresh_target_share_one_lock(tmp_path: Path) -> None:
    target = tmp_path / "fresh.jsonl"
    alias = tmp_path / "alias.jsonl"
    alias.symlink_to(target)
    lock = acquire_writer_lock(str(target))
    assert refusal(alias).startswith(busy_prefix(alias) + "held by " + here(os.getpid()))
    lock.release()
    lock = acquire_writer_lock(str(alias))
    assert refusal(target).startswith(busy_prefix(target) + "held by ")
    lock.release()


def test_a_directory_alias_is_the_same_writer(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    lock = acquire_writer_lock(str(tmp_path / "linked" / "a.jsonl"))
    refusal(tmp_path / "real" / "a.jsonl")
    lock.release()


def test_a_hard_link_alias_is_the_same_writer(tmp_path: Path) -> None:
    first = tmp_path / "first.jsonl"
    first.write_text("x\n")
    second = tmp_path / "second.jsonl"
    os.link(first, second)
    lock = acquire_writer_lock(str(first))
    message = refusal(second)
    assert message.startswith(busy_prefix(second) + "the same file is held by ")
    assert message.endswith("through another name (a hard link)")
    assert f"pid {os.getpid()}" in message
    assert not os.path.exists(writer_lock_path(str(second)))  # the refusal left nothing
    assert not os.path.exists(f"{second}{FLOCK_SUFFIX}")
    lock.release()
    acquire_writer_lock(str(second)).release()


def test_the_name_stays_locked_when_a_new_file_is_renamed_over_it(tmp_path: Path) -> None:
    target = tmp_path / "a.jsonl"
    target.write_text("old\n")
    lock = acquire_writer_lock(str(target))
    partial = tmp_path / "a.jsonl.partial-1-0000abcd"
    partial.write_text("new\n")
    os.rename(partial, target)  # what a create/truncate writer does on a clean close
    refusal(target)
    lock.release()
    acquire_writer_lock(str(target)).release()


def test_processes_racing_a_fresh_path_get_exactly_one_writer(tmp_path: Path) -> None:
    for round_number in range(10):
        path = tmp_path / f"race-{round_number}.jsonl"
        gun_r, gun_w = os.pipe()
        results_r, results_w = os.pipe()
        hold_r, hold_w = os.pipe()
        pids = []
        for _ in range(8):
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                code = 1
                try:
                    os.close(gun_w)
                    os.close(hold_w)
                    os.read(gun_r, 1)  # all start when the parent closes the gun
                    try:
                        lock = acquire_writer_lock(str(path))
                    except CassetteFormatError:
                        os.write(results_w, b"L")
                    else:
                        os.write(results_w, b"W")
                        os.read(hold_r, 1)  # hold until every racer has reported
                        lock.release()
                    code = 0
                finally:
                    os._exit(code)
            pids.append(pid)
        os.close(gun_w)
        outcomes = b""
        while len(outcomes) < 8:
            outcomes += os.read(results_r, 8)
        os.close(hold_w)
        codes = [os.waitpid(pid, 0)[1] for pid in pids]
        for fd in (gun_r, results_r, results_w, hold_r):
            os.close(fd)
        assert sorted(outcomes) == sorted(b"W" + b"L" * 7)
        assert codes == [0] * 8
        assert os.listdir(tmp_path) == []


def test_a_live_holder_in_another_process_is_named_then_released(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"

    report_r, report_w = os.pipe()
    go_r, go_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            os.close(go_w)
            lock = acquire_writer_lock(str(path))
            os.write(report_w, b"ok")
            os.read(go_r, 1)
            lock.release()
            code = 0
        finally:
            os._exit(code)
    assert os.read(report_r, 2) == b"ok"
    assert refusal(path).startswith(busy_prefix(path) + "held by " + here(pid))
    os.close(go_w)
    assert os.waitpid(pid, 0)[1] == 0
    for fd in (report_r, report_w, go_r):
        os.close(fd)
    acquire_writer_lock(str(path)).release()


def _sigkilled_holder(path: Path, *, reap: bool) -> int:
    """Fork a child that takes the lock, SIGKILL it once it holds it; its pid."""
    report_r, report_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            acquire_writer_lock(str(path))
            os.write(report_w, b"ok")
            signal.pause()
        finally:
            os._exit(1)
    assert os.read(report_r, 2) == b"ok"
    os.close(report_r)
    os.close(report_w)
    os.kill(pid, signal.SIGKILL)
    if reap:
        os.waitpid(pid, 0)
    else:  # wait for its death but leave it a zombie
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    return pid


def test_a_sigkilled_holder_is_broken_with_a_warning_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    pid = _sigkilled_holder(path, reap=True)
    assert os.path.isdir(writer_lock_path(str(path)))  # the killed writer left its lock
    with pytest.warns(StaleWriterLockWarning) as caught:
        lock = acquire_writer_lock(str(path))
    (warning,) = caught
    text = str(warning.message)
    assert text.startswith(
        f'broke the stale cassette writer lock "{lock.path}": it was held by {here(pid)}'
    )
    assert text.endswith(", which no longer runs on this host")
    assert markers(lock) == [os.path.basename(lock.owner_path)]
    assert json.loads(Path(lock.owner_path).read_text())["pid"] == os.getpid()
    lock.release()
    assert os.listdir(tmp_path) == []


def test_a_killed_holder_not_yet_reaped_is_dead(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    pid = _sigkilled_holder(path, reap=False)
    try:
        with pytest.warns(StaleWriterLockWarning, match=f"held by pid {pid} "):
            lock = acquire_writer_lock(str(path))
        lock.release()
    finally:
        os.waitpid(pid, 0)


def _plant(path: Path, marker: dict[str, object]) -> str:
    """A lock directory holding one marker, as a writer that is gone would leave it."""
    lock_path = writer_lock_path(str(path))
    os.mkdir(lock_path)
    Path(lock_path, "00000000-0000-4000-8000-000000000000.json").write_text(
        json.dumps(marker) + "\n"
    )
    return lock_path


def _ours(**changes: object) -> dict[str, object]:
    marker: dict[str, object] = {
        "ownerToken": "00000000-0000-4000-8000-000000000000",
        "pid": os.getpid(),
        "acquiredAt": "2026-01-02T03:04:05.678Z",
        "host": socket.gethostname(),
        "bootId": Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
        "processStart": own_start_time(),
    }
    marker.update(changes)
    return marker


def test_a_reused_pid_does_not_keep_a_dead_lock(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"  # our pid, but a process that started at another time
    _plant(path, _ours(processStart=own_start_time() - 1))
    with pytest.warns(StaleWriterLockWarning, match=f"held by pid {os.getpid()} "):
        acquire_writer_lock(str(path)).release()


def test_another_boot_does_not_keep_a_dead_lock(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    _plant(path, _ours(bootId="00000000-0000-0000-0000-000000000000"))
    with pytest.warns(StaleWriterLockWarning):
        acquire_writer_lock(str(path)).release()


def test_a_running_holder_without_a_kernel_lock_is_not_broken(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"  # e.g. a writer of an older version: alive, so kept
    _plant(path, _ours())
    assert refusal(path) == (
        busy_prefix(path) + "held by " + here(os.getpid()) + "2026-01-02T03:04:05.678Z"
    )


@pytest.mark.parametrize(
    ("marker", "described"),
    [
        (  # a reference writer's marker: no host, so its death cannot be proved
            {"ownerToken": "t", "pid": 2**30, "acquiredAt": "2026-01-02T03:04:05.678Z"},
            "held by pid 1073741824 (host not recorded) since 2026-01-02T03:04:05.678Z",
        ),
        (
            _ours(host="elsewhere", pid=2**30),
            'held by pid 1073741824 on host "elsewhere" since 2026-01-02T03:04:05.678Z',
        ),
        ({"pid": "x"}, "its owner marker is unreadable"),
    ],
)
def test_a_holder_not_provably_dead_is_named_and_kept(
    tmp_path: Path, marker: dict[str, object], described: str
) -> None:
    path = tmp_path / "a.jsonl"
    lock_path = _plant(path, marker)
    assert refusal(path) == busy_prefix(path) + described
    assert len(os.listdir(lock_path)) == 1
    assert not os.path.exists(f"{path}{FLOCK_SUFFIX}")


def test_an_empty_lock_directory_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"  # a reference writer between its mkdir and its marker
    os.mkdir(writer_lock_path(str(path)))
    assert refusal(path) == busy_prefix(path) + "the lock directory holds no owner marker"


def test_lock_errors_name_the_path(tmp_path: Path) -> None:
    path = tmp_path / "missing" / "a.jsonl"
    assert refusal(path) == f'cannot resolve cassette path "{path}" for writing'


def test_the_stale_lock_warning_escapes_a_hostile_path(tmp_path: Path) -> None:
    """ESC, BEL and CSI in the cassette's path reach the terminal escaped, as the CLI shows them."""
    directory = tmp_path / "evil\x1b[31m\x07\x9b2Jdir"
    directory.mkdir()
    path = directory / "a\x1b]0;title\x07.jsonl"
    _plant(path, _ours(processStart=own_start_time() - 1))
    with pytest.warns(StaleWriterLockWarning) as caught:
        acquire_writer_lock(str(path)).release()
    (message,) = [str(warning.message) for warning in caught]
    assert not any(char in message for char in "\x1b\x07\x9b")
    assert "evil\\u{001b}[31m\\u{0007}\\u{009b}2Jdir" in message
