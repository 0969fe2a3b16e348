"""The `<path>.writer.lock` directory protocol (WRITE-2, WRITE-10): never inferred stale.

A lock is a directory created with a non-recursive mkdir, holding one owner marker
`<uuid4>.json`. A second writer fails at once; nothing ever breaks a lock by PID or age,
and release removes only its own marker, then the (then empty) directory.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import uuid
from datetime import UTC, datetime

from cassette_format.errors import CassetteFormatError
from cassette_format.header import iso_timestamp

__all__ = ["WriterLock", "acquire_writer_lock", "writer_lock_path"]

_ACTIVE = (
    "; another writer may be active "
    "(remove a stale lock only after confirming no writer is using it)"
)


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


class WriterLock:
    """A held lock: its directory and this owner's marker file."""

    def __init__(self, path: str, owner_path: str) -> None:
        self.path = path
        self.owner_path = owner_path
        self._released = False

    def release(self) -> None:
        """Remove own marker, then the directory; idempotent (WRITE-10)."""
        if self._released:
            return
        self._released = True
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


def acquire_writer_lock(absolute: str) -> WriterLock:
    """Create the lock directory and its owner marker, or fail immediately."""
    lock_path = writer_lock_path(absolute)
    try:
        os.mkdir(lock_path)
    except OSError as error:
        detail = _ACTIVE if error.errno == errno.EEXIST else ""
        raise CassetteFormatError(
            f'cannot acquire cassette writer lock "{lock_path}"{detail}', cause=error
        ) from error
    token = str(uuid.uuid4())
    owner_path = os.path.join(lock_path, f"{token}.json")
    marker = {
        "ownerToken": token,
        "pid": os.getpid(),
        "acquiredAt": iso_timestamp(datetime.now(UTC)),
    }
    fd: int | None = None
    created = False
    try:
        fd = os.open(owner_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        created = True
        os.write(fd, (json.dumps(marker, separators=(",", ":")) + "\n").encode("utf-8"))
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
    return WriterLock(lock_path, owner_path)
