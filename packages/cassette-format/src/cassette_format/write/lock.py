"""One writer per cassette file, whatever its name (WRITE-2, WRITE-10, issue 12).

Three locks, taken in this order and all without waiting:

1. A kernel `flock` on `<resolved target>.writer.flock`, a file beside the resolved target
   (symlinks followed, even a dangling one). It lives in the target's directory, so it is
   keyed by that directory's identity plus the basename, not by how the path is spelled,
   exists before the target does (a fresh path), and survives a `create`/`truncate` writer
   renaming its partial file over the target. It serializes every writer of ours on the
   name, and the kernel drops it when its holder dies.
2. A kernel `flock` on the target file itself when it exists: device + inode, so a hard
   link (another name of the same file) is held too.
3. The reference's `<realpath>.writer.lock` directory with its owner marker, so a
   reference writer and ours still exclude each other.

Holding lock 1, a writer that finds the directory left by a holder that provably died on
this host (same host, and its pid is gone or was reused: `_holder.py`) replaces the stale
marker with its own and warns naming it. Any other existing lock fails at once with the
reference's message plus who holds it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import uuid
import warnings
from dataclasses import dataclass
from datetime import UTC, datetime

from cassette_canonical.display_text import display

from cassette_format.errors import CassetteFormatError
from cassette_format.write.flock import Busy, Held, Unsupported, flock_holder_pid, hold, let_go
from cassette_format.write.holder import LockHolder, holder_is_dead, read_marker, this_process

__all__ = [
    "FLOCK_SUFFIX",
    "StaleWriterLockWarning",
    "WriterLock",
    "acquire_writer_lock",
    "writer_lock_path",
]

_ACTIVE = (
    "; another writer may be active "
    "(remove a stale lock only after confirming no writer is using it)"
)
#: The name lock beside the resolved target: `<target>.writer.flock`.
FLOCK_SUFFIX = ".writer.flock"


class StaleWriterLockWarning(UserWarning):
    """A writer lock left by a process that no longer runs on this host was broken."""


def writer_lock_path(absolute: str) -> str:
    """`<realpath>.writer.lock`, or the parent's realpath + basename for a new file."""
    try:
        canonical = os.path.realpath(absolute, strict=True)
    except FileNotFoundError:
        try:
            parent = os.path.realpath(os.path.dirname(absolute), strict=True)
        except OSError as error:
            raise CassetteFormatError(
                f'cannot resolve cassette path "{absolute}" for writing', cause=error
            ) from error
        canonical = os.path.join(parent, os.path.basename(absolute))
    except OSError as error:
        raise CassetteFormatError(
            f'cannot resolve cassette path "{absolute}" for writing', cause=error
        ) from error
    return f"{canonical}.writer.lock"


@dataclass(frozen=True, slots=True)
class _Guards:
    """The kernel locks behind a writer lock: on the target's name and on its inode."""

    name: Held | None = None
    file: Held | None = None

    def release(self) -> None:
        """Let go of the file lock, then remove and let go of the name lock."""
        try:
            if self.file is not None:
                with contextlib.suppress(OSError):
                    let_go(self.file, remove=False)
        finally:
            if self.name is not None:
                with contextlib.suppress(OSError):
                    let_go(self.name, remove=True)


class WriterLock:
    """A held lock: its directory, this owner's marker file and the kernel locks behind them."""

    def __init__(self, path: str, owner_path: str, *, guards: _Guards | None = None) -> None:
        self.path = path
        self.owner_path = owner_path
        self._guards = _Guards() if guards is None else guards
        self._released = False

    def release(self) -> None:
        """Remove own marker, then the directory (WRITE-10), then the kernel locks; idempotent."""
        if self._released:
            return
        self._released = True
        try:
            self._remove_directory()
        finally:
            self._guards.release()

    def _remove_directory(self) -> None:
        try:
            os.unlink(self.owner_path)
        except FileNotFoundError:
            return  # marker vanished: leave the directory, fail closed (GAP-20)
        except OSError as error:
            raise CassetteFormatError(
                f'cannot release cassette writer lock "{self.path}"', cause=error
            ) from error
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            return
        except OSError as error:
            raise CassetteFormatError(
                f'cannot release cassette writer lock "{self.path}"; '
                "the lock directory contains unowned data",
                cause=error,
            ) from error


def _busy(lock_path: str, who: str) -> CassetteFormatError:
    return CassetteFormatError(f'cannot acquire cassette writer lock "{lock_path}"{_ACTIVE}; {who}')


def _refused(lock_path: str, error: OSError) -> CassetteFormatError:
    return CassetteFormatError(f'cannot acquire cassette writer lock "{lock_path}"', cause=error)


def _name_holder(busy: Busy) -> str:
    """Who holds the name lock: its recorded marker, else the pid the kernel reports."""
    recorded = read_marker(busy.path)
    if recorded is not None:
        return f"held by {recorded.describe()}"
    pid = flock_holder_pid(busy.identity)
    return "held by a writer still starting" + ("" if pid is None else f" (pid {pid})")


def _file_holder(busy: Busy) -> str:
    """Who holds the target's inode: a writer that opened the same file under another name."""
    pid = flock_holder_pid(busy.identity)
    holder = "another writer" if pid is None else f"pid {pid}"
    return f"the same file is held by {holder} through another name (a hard link)"


def _hold(lock_path: str, path: str, *, create: bool) -> Held | None:
    """One kernel lock, or None when there is nothing to lock or no `flock` to lock it with."""
    try:
        outcome = hold(path, create=create)
    except OSError as error:
        raise _refused(lock_path, error) from error
    match outcome:
        case Held():
            return outcome
        case Busy():
            raise _busy(lock_path, _name_holder(outcome) if create else _file_holder(outcome))
        case Unsupported() | None:
            return None  # then only the reference's directory protects this file


def _take_guards(lock_path: str, target: str) -> _Guards:
    """The name lock, then the file lock (when the target exists)."""
    name = _hold(lock_path, f"{target}{FLOCK_SUFFIX}", create=True)
    try:
        return _Guards(name, _hold(lock_path, target, create=False))
    except BaseException:
        _Guards(name).release()
        raise


def _record_holder(guards: _Guards, marker: bytes) -> None:
    """Write our marker into the name lock file too, so a refused writer can name us."""
    if guards.name is not None:
        with contextlib.suppress(OSError):
            os.ftruncate(guards.name.fd, 0)
            os.pwrite(guards.name.fd, marker, 0)


def _claim_directory(lock_path: str, may_break: bool) -> None:
    """Create the lock directory, or take over one whose holder provably died (WRITE-2)."""
    try:
        os.mkdir(lock_path)
        return
    except OSError as error:
        if error.errno != errno.EEXIST:
            raise _refused(lock_path, error) from error
    try:
        entries = os.listdir(lock_path)
    except OSError as error:
        raise _busy(lock_path, "its lock directory cannot be read") from error
    if not entries:
        raise _busy(lock_path, "the lock directory holds no owner marker")
    if len(entries) > 1 or not entries[0].endswith(".json"):
        raise _busy(lock_path, f"the lock directory holds {len(entries)} entries")
    stale_path = os.path.join(lock_path, entries[0])
    stale = read_marker(stale_path)
    if stale is None:
        raise _busy(lock_path, "its owner marker is unreadable")
    if not (may_break and holder_is_dead(stale)):
        raise _busy(lock_path, f"held by {stale.describe()}")
    _break(lock_path, stale_path, stale)


def _break(lock_path: str, stale_path: str, stale: LockHolder) -> None:
    """Remove a dead holder's marker (we hold the name lock, so no writer of ours races)."""
    try:
        os.unlink(stale_path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise _busy(lock_path, f"held by {stale.describe()}, which cannot be removed") from error
    # Shown on a terminal by Python's warning machinery: escaped as the CLI escapes its output
    # (CLI-1), since the path and the planted marker's holder are anyone's text (issue 26).
    warnings.warn(
        display(
            f'broke the stale cassette writer lock "{lock_path}": it was held by '
            f"{stale.describe()}, which no longer runs on this host"
        ),
        StaleWriterLockWarning,
        stacklevel=4,
    )


def _write_marker(lock_path: str, holder: LockHolder) -> str:
    """Exclusively create `<token>.json` in the lock directory; clean up if that fails."""
    owner_path = os.path.join(lock_path, f"{holder.token}.json")
    fd: int | None = None
    created = False
    try:
        fd = os.open(owner_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
        os.write(fd, holder.to_marker())
        os.close(fd)
        fd = None
    except OSError as error:
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)
        # Best effort (WRITE-2): only our own marker, then the directory if it is empty.
        with contextlib.suppress(OSError):
            if created:
                os.unlink(owner_path)
        with contextlib.suppress(OSError):
            os.rmdir(lock_path)
        raise CassetteFormatError(
            f'cannot initialize cassette writer lock "{lock_path}"', cause=error
        ) from error
    return owner_path


def acquire_writer_lock(absolute: str) -> WriterLock:
    """Take the name, file and directory locks of `absolute`, or fail immediately."""
    lock_path = writer_lock_path(absolute)
    target = os.path.realpath(absolute)  # the file a writer will write, even via a dangling link
    holder = this_process(str(uuid.uuid4()), datetime.now(UTC))  # the edge reads id and clock
    guards = _take_guards(lock_path, target)
    try:
        _record_holder(guards, holder.to_marker())
        _claim_directory(lock_path, may_break=guards.name is not None)
        owner_path = _write_marker(lock_path, holder)
    except BaseException:
        guards.release()
        raise
    return WriterLock(lock_path, owner_path, guards=guards)
