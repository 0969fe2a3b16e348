"""Where a `create`/`truncate` recording lands on a clean close, and how it gets there.

The partial sibling (`partial.py`) is renamed over the resolved target (`create` never
replaces an existing name, even without hard links); the directory is then fsynced.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Literal

from cassette_format.errors import CassetteFormatError, format_error
from cassette_format.problem import FormatProblem

__all__ = ["Commit", "WriteMode", "destination", "open_refusal", "place"]

WriteMode = Literal["create", "truncate", "append"]

#: errno values of file systems without hard links: `create` then checks and renames.
_NO_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV})


@dataclass(frozen=True, slots=True)
class Commit:
    """Where a partial recording goes on a clean close, and whether it may replace a file."""

    partial: str
    destination: str
    replace: bool


def open_refusal(absolute: str, mode: WriteMode, cause: OSError) -> CassetteFormatError:
    """WRITE-3's `cannot open cassette "<abs>" in <mode> mode`, with its cause."""
    return format_error(
        FormatProblem(f'cannot open cassette "{absolute}" in {mode} mode', cause=cause)
    )


def destination(absolute: str, mode: WriteMode) -> str:
    """The real file a partial recording replaces: symlinks followed, so a link stays one.

    `create` refuses any existing name (a dangling symlink too); `truncate` refuses what it
    could not have truncated in place: a non-regular file or one it may not write.
    """
    resolved = os.path.realpath(absolute)
    if mode == "create":
        if os.path.lexists(absolute):
            raise open_refusal(
                absolute, mode, FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), absolute)
            )
        return resolved
    try:
        found = os.stat(resolved)
    except FileNotFoundError:
        return resolved
    except OSError as error:
        raise open_refusal(absolute, mode, error) from error
    if not stat.S_ISREG(found.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(found.st_mode) else errno.EINVAL
        raise open_refusal(absolute, mode, OSError(code, os.strerror(code), absolute))
    if not os.access(resolved, os.W_OK):
        raise open_refusal(
            absolute, mode, PermissionError(errno.EACCES, os.strerror(errno.EACCES), absolute)
        )
    return resolved


def place(commit: Commit) -> None:
    """Move the partial file onto its destination; `create` never replaces an existing file."""
    if commit.replace:
        os.rename(commit.partial, commit.destination)
        return
    try:
        os.link(commit.partial, commit.destination)  # fails with EEXIST, never replaces
    except OSError as error:
        if error.errno not in _NO_LINKS:
            raise
        if os.path.lexists(commit.destination):
            raise FileExistsError(
                errno.EEXIST, os.strerror(errno.EEXIST), commit.destination
            ) from error
        os.rename(commit.partial, commit.destination)
        return
    os.unlink(commit.partial)
