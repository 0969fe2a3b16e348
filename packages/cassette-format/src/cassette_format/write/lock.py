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
this host (same host, and its pid is gone or was reused: `_holder.py`) removes that
directory, creates its own and warns naming the dead holder. A directory left empty or
with a torn marker (its writer killed between `mkdir` and the marker) is taken over the
same way when the name lock file still records that writer of ours and it is provably
dead. Any other existing lock fails at once with the reference's message plus who holds it.

No name is followed (issue 26): a symlink at the lock directory's name is refused, never
listed, entered or removed through; the directory is read and its marker created through
a descriptor opened with `O_NOFOLLOW`, and the name lock file is opened with `O_NOFOLLOW`.
When the target file appears after the lock was taken (append to a missing path),
`WriterLock.hold_file` takes its inode lock at once.
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

from cassette_format.errors import CassetteFormatError, format_error
from cassette_format.problem import FormatProblem
from cassette_format.write.flock import Busy, Held, Unsupported, flock_holder_pid, hold, let_go
from cassette_format.write.holder import (
    MARKER_LIMIT,
    LockHolder,
    holder_is_dead,
    parse_marker,
    read_marker,
    this_process,
)
from cassette_format.write.safe_files import is_symlink

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
            raise format_error(
                FormatProblem(f'cannot resolve cassette path "{absolute}" for writing', cause=error)
            ) from error
        canonical = os.path.join(parent, os.path.basename(absolute))
    except OSError as error:
        raise format_error(
            FormatProblem(f'cannot resolve cassette path "{absolute}" for writing', cause=error)
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

    def hold_file(self, target: str) -> None:
        """Take the inode lock of `target`, a file created after this lock was taken.

        From then on a hard link to it, made while recording, names a held file and a
        writer opening the link is refused. No-op when the file lock is already held.
        """
        if self._guards.file is not None:
            return
        held = _hold(self.path, target, create=False)
        self._guards = _Guards(self._guards.name, held)

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
            raise format_error(
                FormatProblem(f'cannot release cassette writer lock "{self.path}"', cause=error)
            ) from error
        try:
            os.rmdir(self.path)
        except FileNotFoundError:
            return
        except OSError as error:
            raise format_error(
                FormatProblem(
                    f'cannot release cassette writer lock "{self.path}"; '
                    "the lock directory contains unowned data",
                    cause=error,
                )
            ) from error


def _busy(lock_path: str, who: str) -> CassetteFormatError:
    return format_error(
        FormatProblem(f'cannot acquire cassette writer lock "{lock_path}"{_ACTIVE}; {who}')
    )


def _refused(lock_path: str, error: OSError) -> CassetteFormatError:
    if error.errno == errno.ELOOP:
        return _symlink_refused(lock_path, error.filename or lock_path, error)
    return format_error(
        FormatProblem(f'cannot acquire cassette writer lock "{lock_path}"', cause=error)
    )


def _symlink_refused(lock_path: str, name: str, error: OSError | None) -> CassetteFormatError:
    """A planted symlink where the lock keeps its files: refused, never followed (issue 26)."""
    return format_error(
        FormatProblem(
            f'cannot acquire cassette writer lock "{lock_path}": "{name}" is a symbolic link '
            "and is never followed; remove it if it is not yours",
            cause=error,
        )
    )


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


def _recorded_holder(guards: _Guards) -> LockHolder | None:
    """The marker the name lock file still holds: the last writer of ours, if it never let go."""
    if guards.name is None:
        return None
    try:
        return parse_marker(os.pread(guards.name.fd, MARKER_LIMIT + 1, 0))
    except OSError:
        return None


def _record_holder(guards: _Guards, marker: bytes) -> None:
    """Write our marker into the name lock file too, so a refused writer can name us."""
    if guards.name is not None:
        with contextlib.suppress(OSError):
            os.ftruncate(guards.name.fd, 0)
            os.pwrite(guards.name.fd, marker, 0)


_DIRECTORY = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_NOFOLLOW | os.O_CLOEXEC


def _open_directory(lock_path: str) -> int:
    """The lock directory itself, never a symlink planted at its name."""
    try:
        return os.open(lock_path, _DIRECTORY)
    except OSError as error:
        if error.errno in {errno.ELOOP, errno.ENOTDIR} and is_symlink(lock_path):
            raise _symlink_refused(lock_path, lock_path, error) from error
        raise _busy(lock_path, "its lock directory cannot be read") from error


def _claim_directory(lock_path: str, may_break: bool, last: LockHolder | None) -> int:
    """Create the lock directory, or take over one whose holder provably died (WRITE-2).

    Returns a descriptor of the directory now ours. `last` is the holder the name lock
    file recorded before us: a writer of ours that never let go of the name.
    """
    try:
        os.mkdir(lock_path)
        return _open_directory(lock_path)
    except OSError as error:
        if error.errno != errno.EEXIST:
            raise _refused(lock_path, error) from error
    if is_symlink(lock_path):
        raise _symlink_refused(lock_path, lock_path, None)
    fd = _open_directory(lock_path)
    try:
        stale = _stale_holder(lock_path, fd, may_break, last)
        _break(lock_path, fd, stale)
    finally:
        os.close(fd)
    try:
        os.mkdir(lock_path)
    except OSError as error:  # another writer (a reference one) got there first
        raise _busy(lock_path, "it was taken again while a dead holder's lock was removed") from (
            error
        )
    return _open_directory(lock_path)


def _stale_holder(
    lock_path: str, fd: int, may_break: bool, last: LockHolder | None
) -> tuple[str | None, LockHolder]:
    """The dead holder's marker name (None: none left) and marker, or the busy error."""
    try:
        entries = os.listdir(fd)
    except OSError as error:
        raise _busy(lock_path, "its lock directory cannot be read") from error
    dead_last = may_break and last is not None and holder_is_dead(last)
    if not entries:
        if dead_last and last is not None:
            return None, last  # killed between its mkdir and its marker
        raise _busy(lock_path, "the lock directory holds no owner marker")
    if len(entries) > 1 or not entries[0].endswith(".json"):
        raise _busy(lock_path, f"the lock directory holds {len(entries)} entries")
    stale = read_marker(entries[0], directory=fd)
    if stale is None:
        if dead_last and last is not None and entries[0] == f"{last.token}.json":
            return entries[0], last  # killed while writing its marker
        raise _busy(lock_path, "its owner marker is unreadable")
    if not (may_break and holder_is_dead(stale)):
        raise _busy(lock_path, f"held by {stale.describe()}")
    return entries[0], stale


def _break(lock_path: str, directory: int, stale: tuple[str | None, LockHolder]) -> None:
    """Remove a dead holder's marker and directory (we hold the name lock: no writer of ours
    races), warning whose lock it was."""
    name, holder = stale
    try:
        if name is not None:
            os.unlink(name, dir_fd=directory)
        os.rmdir(lock_path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise _busy(lock_path, f"held by {holder.describe()}, which cannot be removed") from error
    # Shown on a terminal by Python's warning machinery: escaped as the CLI escapes its output
    # (CLI-1), since the path and the planted marker's holder are anyone's text (issue 26).
    warnings.warn(
        display(
            f'broke the stale cassette writer lock "{lock_path}": it was held by '
            f"{holder.describe()}, which no longer runs on this host"
        ),
        StaleWriterLockWarning,
        stacklevel=4,
    )


def _write_marker(lock_path: str, directory: int, holder: LockHolder) -> str:
    """Exclusively create `<token>.json` in the lock directory; clean up if that fails."""
    name = f"{holder.token}.json"
    owner_path = os.path.join(lock_path, name)
    fd: int | None = None
    created = False
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(name, flags, 0o644, dir_fd=directory)
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
                os.unlink(name, dir_fd=directory)
        with contextlib.suppress(OSError):
            os.rmdir(lock_path)
        raise format_error(
            FormatProblem(f'cannot initialize cassette writer lock "{lock_path}"', cause=error)
        ) from error
    return owner_path


def acquire_writer_lock(absolute: str) -> WriterLock:
    """Take the name, file and directory locks of `absolute`, or fail immediately."""
    lock_path = writer_lock_path(absolute)
    target = os.path.realpath(absolute)  # the file a writer will write, even via a dangling link
    holder = this_process(str(uuid.uuid4()), datetime.now(UTC))  # the edge reads id and clock
    guards = _take_guards(lock_path, target)
    try:
        last = _recorded_holder(guards)
        _record_holder(guards, holder.to_marker())
        directory = _claim_directory(lock_path, guards.name is not None, last)
        try:
            owner_path = _write_marker(lock_path, directory, holder)
        finally:
            os.close(directory)
    except BaseException:
        guards.release()
        raise
    return WriterLock(lock_path, owner_path, guards=guards)
