"""Warnings about partial recordings for `verify`: printed on stderr, so documents stay as-is.

A `create`/`truncate` recording fills `<target>.partial-<pid>-<token>` and renames it over
the target only on a clean close (cassette_format.write.partial). When one is left behind the
recording was interrupted, or is still running, and the target does not hold it.
"""

from __future__ import annotations

import os
import shlex

from cassette_format.write.partial import (
    FAILED_SUFFIX,
    PartialRecording,
    partial_recording,
    partial_siblings,
)

from cassette_cli.display import display

__all__ = ["incomplete_notes"]


def _writer_state(partial: PartialRecording) -> str:
    if partial.writer_running():
        return f"its writer (pid {partial.pid}) is still running: not committed yet"
    return (
        f"its writer (pid {partial.pid}) is gone: the recording was interrupted; "
        f"remove it with: rm {display(shlex.quote(partial.path))}"
    )


def _failed_note(path: str) -> str | None:
    """A pytest run's failed recording kept beside `path` (`<cassette>.failed`), if any."""
    failed = path + FAILED_SUFFIX
    if not os.path.isfile(failed):
        return None
    return (
        f'note: "{display(failed)}" holds a failed test\'s recording of "{display(path)}", '
        f"never committed; remove it with: rm {display(shlex.quote(failed))}"
    )


def _same_file(left: str, right: str) -> bool:
    try:
        return os.path.samefile(left, right)
    except (OSError, ValueError):
        return False


def incomplete_notes(path: str) -> list[str]:
    """One line per incomplete or failed recording `path` is, or has beside it."""
    notes: list[str] = []
    itself = partial_recording(path)
    if itself is not None:
        notes.append(
            f'warning: "{display(path)}" is an incomplete recording of '
            f'"{display(itself.target)}"; {_writer_state(itself)}'
        )
    for sibling in partial_siblings(path):
        if _same_file(sibling.path, path):
            continue
        notes.append(
            f'warning: incomplete recording "{display(sibling.path)}" beside '
            f'"{display(path)}"; {_writer_state(sibling)}'
        )
    failed = _failed_note(path)
    if failed is not None:
        notes.append(failed)
    return notes
