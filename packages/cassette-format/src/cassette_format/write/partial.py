"""Partial recordings: the temporary sibling a `create`/`truncate` writer fills before commit.

A writer in `create` or `truncate` mode writes `<target>.partial-<pid>-<token>` (the
target's basename, `.partial-`, the writer's decimal pid, `-`, 8 lowercase hex digits)
in the target's real directory and renames it over the target only on a clean close. A
killed or interrupted recording leaves that file beside the untouched target; its name
says which cassette it was meant to become and which process wrote it.
"""

from __future__ import annotations

import os
import re
import secrets
from dataclasses import dataclass
from typing import Final

__all__ = [
    "FAILED_SUFFIX",
    "PARTIAL_MARK",
    "PartialRecording",
    "new_partial_path",
    "partial_recording",
    "partial_siblings",
]

PARTIAL_MARK: Final = ".partial-"
#: `<target>.failed`: where the pytest plugin keeps a failed test's recording of `target`,
#: so it never becomes the cassette; `cassette verify <target>` names it (issue 27).
FAILED_SUFFIX: Final = ".failed"

_NAME = re.compile(r"(?P<base>.+)\.partial-(?P<pid>[0-9]{1,10})-(?P<token>[0-9a-f]{8})")


@dataclass(frozen=True, slots=True)
class PartialRecording:
    """A partial file: its path, the target it was meant to replace, the writer's pid."""

    path: str
    target: str
    pid: int

    def writer_running(self) -> bool:
        """True when a process with the writer's pid exists on this host (it may be reused)."""
        if self.pid <= 0:
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # EPERM: it exists but belongs to someone else
            return True
        return True


def new_partial_path(target: str) -> str:
    """A fresh partial path beside `target`, unique to this process and call."""
    return f"{target}{PARTIAL_MARK}{os.getpid()}-{secrets.token_hex(4)}"


def partial_recording(path: str) -> PartialRecording | None:
    """The partial recording `path` names by its spelling, or None for any other name."""
    directory, name = os.path.split(path)
    match = _NAME.fullmatch(name)
    if match is None:
        return None
    return PartialRecording(path, os.path.join(directory, match["base"]), int(match["pid"]))


def partial_siblings(target: str) -> tuple[PartialRecording, ...]:
    """Partial recordings left beside `target` (looked up in its real directory), sorted."""
    absolute = os.path.abspath(target)
    try:
        real = os.path.realpath(absolute)
    except (OSError, ValueError):
        real = absolute
    directory, base = os.path.split(real)
    try:
        names = os.listdir(directory or ".")
    except (OSError, ValueError):
        return ()
    found: list[PartialRecording] = []
    prefix = base + PARTIAL_MARK
    for name in sorted(names):
        if not name.startswith(prefix):
            continue
        partial = partial_recording(os.path.join(directory, name))
        if partial is not None and os.path.basename(partial.target) == base:
            found.append(partial)
    return tuple(found)
