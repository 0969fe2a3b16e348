"""Open a cassette for reading only when it is a regular file, never blocking on the way.

A FIFO, character device, directory or socket would make a reader wait for a writer or
read forever (`/dev/zero`), so the path is opened non-blocking, checked with fstat and
refused unless it is a regular file; only then is blocking I/O switched back on.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import BinaryIO

__all__ = ["open_regular"]

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def open_regular(path: str) -> BinaryIO:
    """A buffered binary reader of `path`; OSError if it cannot be opened or is not a file."""
    try:
        fd = os.open(path, _FLAGS)
    except ValueError as error:  # an embedded NUL: no such file can exist
        raise OSError(errno.EINVAL, str(error), path) from error
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
            raise OSError(code, "not a regular file", path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
