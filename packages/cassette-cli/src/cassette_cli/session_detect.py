"""Telling a model-call session log from a cassette by its header line, cheaply.

`verify` keeps its import budget for cassettes: this peek reads at most one line prefix of a
regular file (the format's non-blocking open, so a FIFO never hangs it) and imports nothing
else, so session-log support is loaded only when a session log is seen.
"""

from __future__ import annotations

import os
from typing import Final

__all__ = ["directory_holds_session_logs", "is_session_log"]

_PEEK: Final = 64 * 1024
_KIND: Final = b'"kind":"session-log/header"'
_FORMAT: Final = b'"format":"cassette-session-log"'
_NAME_PREFIX: Final = "session"
_NAME_SUFFIX: Final = ".jsonl"


def is_session_log(path: str) -> bool:
    """True when the file's first non-blank line is a session-log header (canonical JSON)."""
    from cassette_format import open_regular  # never blocks on a FIFO or reads a device

    try:
        with open_regular(path) as stream:
            head = stream.read(_PEEK)
    except OSError:
        return False
    for raw in head.split(b"\n"):
        if raw.strip(b" \t\r"):
            return _KIND in raw and _FORMAT in raw
    return False


def directory_holds_session_logs(directory: str) -> bool:
    """True when some `session*.jsonl` file below the directory has a session-log header."""
    for current, subdirectories, names in os.walk(directory):
        subdirectories.sort()
        for name in sorted(names):
            named = name.startswith(_NAME_PREFIX) and name.endswith(_NAME_SUFFIX)
            if named and is_session_log(os.path.join(current, name)):
                return True
    return False
