"""Files created so that no planted name is followed: exclusive, no symlinks, private (issue 26).

Every file a writer of ours creates beside a cassette or a session log (a partial
recording, a lock marker, a seal, a temporary file) is created with `O_CREAT | O_EXCL |
O_NOFOLLOW`: an existing name, a symlink above all, is never opened, truncated or written
through. Temporary names carry a random token, so nobody can plant one in advance. New
files are created 0600: cassettes and session logs hold prompts and results, secrets by
nature; a file replacing an existing one takes that file's mode instead.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat

__all__ = [
    "PRIVATE_MODE",
    "create_new",
    "is_symlink",
    "kept_mode",
    "replace_atomically",
    "sync_directory",
    "temporary_sibling",
    "write_all",
]

#: The mode of a new cassette, seal or session log: readable by its owner only.
PRIVATE_MODE = 0o600

_CREATE = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_ATTEMPTS = 16


def create_new(path: str, mode: int = PRIVATE_MODE, *, readable: bool = False) -> int:
    """A write (`readable`: read-write) descriptor of a file this call created.

    OSError (EEXIST) for any existing name.

    `O_EXCL` fails on an existing name, a dangling or live symlink included, so nothing
    planted there is followed. The mode is set exactly, whatever the umask: 0600, or the
    mode of the file this one will replace.
    """
    flags = (_CREATE & ~os.O_WRONLY) | os.O_RDWR if readable else _CREATE
    fd = os.open(path, flags, mode)
    try:
        os.fchmod(fd, mode)
    except OSError:
        os.close(fd)
        raise
    return fd


def is_symlink(path: str) -> bool:
    """True when `path` itself (not what it points to) is a symbolic link."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def kept_mode(path: str, default: int = PRIVATE_MODE) -> int:
    """The permission bits of the regular file at `path` (followed), else `default`."""
    try:
        found = os.stat(path)
    except OSError:
        return default
    return stat.S_IMODE(found.st_mode) if stat.S_ISREG(found.st_mode) else default


def temporary_sibling(path: str, purpose: str) -> str:
    """`<dir>/.<name>.<purpose>-<token>`: a hidden, unpredictable name beside `path`."""
    directory, name = os.path.split(path)
    return os.path.join(directory, f".{name}.{purpose}-{secrets.token_hex(6)}")


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` (os.write may write less than asked)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def sync_directory(directory: str) -> None:
    """fsync a directory so a rename in it survives a crash (where the system supports it)."""
    fd = os.open(directory or ".", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}:
            raise
    finally:
        os.close(fd)


def replace_atomically(path: str, data: bytes, *, purpose: str = "tmp") -> None:
    """Put `data` at `path` all at once: a fresh temporary sibling, fsync, rename, fsync dir.

    The temporary file is created exclusively under a random name (never followed); the
    result keeps the mode of the regular file it replaces, or is created 0600. A symlink
    at `path` itself is replaced, never written through. Raises OSError; on failure the
    temporary file is removed and `path` is as it was.
    """
    mode = PRIVATE_MODE if is_symlink(path) else kept_mode(path)
    for attempt in range(_ATTEMPTS):
        temporary = temporary_sibling(path, purpose)
        try:
            fd = create_new(temporary, mode)
        except FileExistsError:
            if attempt == _ATTEMPTS - 1:
                raise
            continue
        break
    try:
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    sync_directory(os.path.dirname(path))
