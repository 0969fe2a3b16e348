"""Kernel `flock` locks on files, keyed by the locked inode rather than by any name of it.

`hold` opens a path, takes an exclusive non-blocking `flock` and then checks the path still
names the inode it locked (a releasing holder may have unlinked it meanwhile), retrying a
bounded number of times. The kernel drops the lock when its holder dies, so a killed writer
never leaves it held.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
from dataclasses import dataclass

__all__ = ["Busy", "Held", "Unsupported", "flock_holder_pid", "hold", "let_go"]

_ATTEMPTS = 64
#: errno values of file systems that offer no `flock`.
_NO_FLOCK = frozenset({errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL})
_PROBE = os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class Held:
    """A lock this process holds: the path, its open descriptor and the inode locked."""

    path: str
    fd: int
    identity: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Busy:
    """Another open file description holds the lock on the inode `path` named."""

    path: str
    identity: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Unsupported:
    """The file system offers no `flock` for `path`."""

    path: str


def _identity(found: os.stat_result) -> tuple[int, int]:
    return found.st_dev, found.st_ino


def _open_sidecar(path: str) -> int:
    """Open (creating) a lock file of ours; read-only when another user owns it."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | _PROBE, 0o644)
    except PermissionError:
        return os.open(path, os.O_RDONLY | _PROBE)


def _open_existing(path: str) -> int | None:
    """Open an existing regular file for locking only, or None when there is none to lock."""
    try:
        if not stat.S_ISREG(os.stat(path, follow_symlinks=False).st_mode):
            return None  # never open a device or FIFO; the writer refuses those anyway
    except FileNotFoundError:
        return None
    for flags in (os.O_RDONLY, os.O_WRONLY):
        try:
            return os.open(path, flags | _PROBE)
        except FileNotFoundError:
            return None
        except PermissionError:
            continue
    return None  # neither readable nor writable: no writer of ours can use it


def hold(path: str, *, create: bool) -> Held | Busy | Unsupported | None:
    """Lock the inode `path` names (creating the file if `create`); None: nothing to lock.

    Raises OSError when the file cannot be opened or keeps being replaced.
    """
    for _ in range(_ATTEMPTS):
        fd = _open_sidecar(path) if create else _open_existing(path)
        if fd is None:
            return None
        keep = False
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                if not create:
                    return None
                raise OSError(errno.EINVAL, "a writer lock file must be a regular file", path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return Busy(path, _identity(opened))
            except OSError as error:
                if error.errno in _NO_FLOCK:
                    return Unsupported(path)
                raise
            try:
                named = os.stat(path, follow_symlinks=False)
            except FileNotFoundError:
                continue  # its holder removed it while letting go: lock the next one
            if _identity(named) == _identity(opened):
                keep = True
                return Held(path, fd, _identity(opened))
        finally:
            if not keep:
                os.close(fd)
    raise OSError(errno.EAGAIN, "the writer lock file keeps being replaced", path)


def let_go(held: Held, *, remove: bool) -> None:
    """Release a lock; with `remove`, first unlink its file if the path still names it."""
    try:
        if remove:
            with contextlib.suppress(OSError):
                if _identity(os.stat(held.path, follow_symlinks=False)) == held.identity:
                    os.unlink(held.path)  # while still locked, so no one else holds it yet
    finally:
        os.close(held.fd)


def flock_holder_pid(identity: tuple[int, int]) -> int | None:
    """The pid /proc/locks names as holding a `flock` on that inode (Linux), if any."""
    device, inode = identity
    wanted = (os.major(device), os.minor(device), inode)
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as source:
            lines = source.read(1 << 20).splitlines()
    except OSError:
        return None
    for line in lines:
        parts = line.split()
        if len(parts) < 6 or parts[1] != "FLOCK":
            continue  # POSIX locks, and "->" lines of blocked waiters
        numbers = parts[5].split(":")
        try:
            found = (int(numbers[0], 16), int(numbers[1], 16), int(numbers[2]))
            pid = int(parts[4])
        except (IndexError, ValueError):
            continue
        if found == wanted and pid > 0:
            return pid
    return None
