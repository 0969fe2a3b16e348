"""Who holds a cassette writer lock: its owner marker, and whether that process still runs.

A marker keeps the reference's keys first (`ownerToken`, `pid`, `acquiredAt`, WRITE-2) and
adds `host`, `bootId` and `processStart` (the kernel's start time of the process, in clock
ticks since boot), so a later writer on the same host can prove the holder dead even when
its pid was reused. A reference marker lacks them and is never provably dead.
"""

from __future__ import annotations

import json
import os
import re
import socket
import stat
from dataclasses import dataclass
from datetime import datetime
from typing import TypeGuard

from cassette_format.records.members import present
from cassette_format.write.header import iso_timestamp

__all__ = ["LockHolder", "holder_is_dead", "parse_marker", "read_marker", "this_process"]

#: A marker is a few hundred bytes; anything longer is not one.
MARKER_LIMIT = 4096
_PID_LIMIT = 2**31
_PLAIN_TIME = re.compile(r"[0-9A-Za-z:.+\-]{1,40}")


@dataclass(frozen=True, slots=True)
class LockHolder:
    """One writer's claim on a lock: token, pid and time, plus where and since when it runs."""

    token: str
    pid: int
    acquired_at: str
    host: str | None = None
    boot_id: str | None = None
    process_start: int | None = None

    def to_marker(self) -> bytes:
        """The marker file's bytes: the reference's keys in its order, then ours, then `\\n`."""
        document = present(
            ("ownerToken", self.token),
            ("pid", self.pid),
            ("acquiredAt", self.acquired_at),
            ("host", self.host),
            ("bootId", self.boot_id),
            ("processStart", self.process_start),
        )
        return (json.dumps(document, separators=(",", ":")) + "\n").encode("utf-8")

    def describe(self) -> str:
        """`pid 12 on host "h" since <time>`, safe to print whatever the marker held."""
        where = f"on host {_quoted(self.host)}" if self.host is not None else "(host not recorded)"
        since = (
            self.acquired_at
            if _PLAIN_TIME.fullmatch(self.acquired_at)
            else _quoted(self.acquired_at)
        )
        return f"pid {self.pid} {where} since {since}"


def _quoted(text: str) -> str:
    return json.dumps(text[:80])


def _boot_id() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as source:
            return source.read(64).strip() or None
    except (OSError, ValueError):
        return None


def _process_stat(pid: int) -> tuple[str, int] | None:
    """The state letter and start time (ticks since boot) of `pid`, or None when unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as source:
            data = source.read(4096)
    except OSError:
        return None
    fields = data[data.rfind(b")") + 1 :].split()
    try:
        return fields[0].decode("ascii"), int(fields[19])  # fields 3 and 22 of proc(5)
    except (IndexError, ValueError, UnicodeDecodeError):
        return None


def this_process(token: str, acquired_at: datetime) -> LockHolder:
    """The marker of a lock this process takes with `token` at `acquired_at`."""
    pid = os.getpid()
    found = _process_stat(pid)
    return LockHolder(
        token=token,
        pid=pid,
        acquired_at=iso_timestamp(acquired_at),
        host=socket.gethostname(),
        boot_id=_boot_id(),
        process_start=None if found is None else found[1],
    )


def parse_marker(data: bytes) -> LockHolder | None:
    """The holder a marker's bytes name, or None when they are not a marker."""
    if len(data) > MARKER_LIMIT:
        return None
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    token, pid, acquired = (
        document.get("ownerToken"),
        document.get("pid"),
        document.get("acquiredAt"),
    )
    if not (isinstance(token, str) and isinstance(acquired, str) and _is_int(pid)):
        return None
    if not 0 < pid < _PID_LIMIT:
        return None
    host, boot, start = document.get("host"), document.get("bootId"), document.get("processStart")
    return LockHolder(
        token=token,
        pid=pid,
        acquired_at=acquired,
        host=host if isinstance(host, str) else None,
        boot_id=boot if isinstance(boot, str) else None,
        process_start=start if _is_int(start) else None,
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def read_marker(path: str, *, directory: int | None = None) -> LockHolder | None:
    """The holder named by the marker file at `path`, or None if it is missing or not one.

    Never through a symlink; `directory` (a descriptor) makes `path` relative to it.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
    try:
        fd = os.open(path, flags, dir_fd=directory)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return parse_marker(os.read(fd, MARKER_LIMIT + 1))
    except OSError:
        return None
    finally:
        os.close(fd)


def holder_is_dead(holder: LockHolder) -> bool:
    """True only when the holder provably no longer runs: same host, and its process is gone.

    Gone means: the host rebooted since, no process has its pid, the process is a zombie,
    or the pid now belongs to a process that started at another time (pid reuse).
    """
    if holder.host is None or holder.host != socket.gethostname():
        return False
    boot = _boot_id()
    if holder.boot_id is not None and boot is not None and holder.boot_id != boot:
        return True
    try:
        os.kill(holder.pid, 0)
    except ProcessLookupError:
        return True
    except (OSError, OverflowError):  # EPERM: it runs under another user
        pass
    found = _process_stat(holder.pid)
    if found is None:
        return False
    state, start = found
    if state in {"Z", "X"}:
        return True
    return holder.process_start is not None and start != holder.process_start
