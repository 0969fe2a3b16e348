"""A recording whose test failed, or that made no call, never becomes the committed cassette.

The writer fills `<target>.partial-<pid>-<token>` and renames it over the target only on a
clean close (cassette_format.write.partial). When the test fails, the plugin closes the recording
as interrupted, so the committed cassette stays as it was, and moves this process's partial
file to the one named sibling `<cassette>.failed` (a later failure replaces it, a later
committed recording removes it). A recording that made no call is removed: a header-only
cassette replays nothing, so committing it would only hide the missing recording. Nothing
here prints a prompt or a result: paths, counts and commands only.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

from cassette_canonical.display_text import display
from cassette_format.read.parse import read_cassette
from cassette_format.write.partial import FAILED_SUFFIX, partial_siblings

__all__ = [
    "discard_stale_failed",
    "empty_cassette_message",
    "failed_sibling",
    "holds_no_call",
    "keep_failed",
    "missing_cassette_message",
    "no_call_message",
    "not_committed_note",
    "record_command",
]


def failed_sibling(cassette: Path) -> Path:
    """`<cassette>.failed`: where a failed test's recording of `cassette` is kept."""
    return cassette.with_name(cassette.name + FAILED_SUFFIX)


def record_command(option: str, nodeid: str, mode: str, pinned: str | None = None) -> str:
    """The exact command that records one test's cassette: `pytest <option>=<mode> <nodeid>`.

    A test whose marker or `subagent_cassette_config` pins another `record_mode` ignores the
    command line's mode, so it is told to change the pinned value instead.
    """
    if pinned is None or pinned == mode:
        return f"pytest {option}={mode} {shlex.quote(nodeid)}"
    return (
        f'set record_mode="{mode}" where this test pins record_mode="{pinned}" (its '
        "subagent_cassette marker or subagent_cassette_config; a pinned mode overrides the "
        f"command line), then run: pytest {shlex.quote(nodeid)}"
    )


def holds_no_call(path: Path) -> bool:
    """True when the file is a valid cassette header and nothing else (blank lines aside).

    Reads one line, then only until the first non-blank one, so a recorded cassette costs a
    line or two; only a lone first line is verified as a cassette. An unreadable or invalid
    file counts as holding calls, so replay reports its real problem.
    """
    try:
        with path.open("rb") as lines:
            lines.readline()  # the header (or whatever the first line is)
            if not all(not line.strip() for line in lines):
                return False
    except OSError:
        return False
    return read_cassette(path).map(lambda cassette: not cassette.interactions).value_or(False)


def _own_partials(target: Path) -> list[Path]:
    """This process's partial files beside `target`, newest last."""
    pid = os.getpid()
    own = [Path(partial.path) for partial in partial_siblings(str(target)) if partial.pid == pid]
    return sorted(own, key=_modified)


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def keep_failed(target: Path, cassette: Path, *, recorded: int) -> Path | None:
    """Move this process's uncommitted recording of `target` to `<cassette>.failed`.

    With no recorded call the partial file is removed instead (None). Returns the kept path.
    """
    partials = _own_partials(target)
    if not partials:
        return None
    newest = partials[-1]
    if recorded == 0:
        newest.unlink(missing_ok=True)
        return None
    kept = failed_sibling(cassette)
    os.replace(newest, kept)
    return kept


def discard_stale_failed(cassette: Path) -> None:
    """A committed recording supersedes an older failed one: remove `<cassette>.failed`."""
    failed_sibling(cassette).unlink(missing_ok=True)


def not_committed_note(cassette: Path, kept: Path | None, *, existed: bool, command: str) -> str:
    """The report section of a failed recording run: what was kept, and how to record again."""
    state = "is unchanged" if existed else "was not created"
    lines = [
        display(f"the test failed, so its recording was not committed: {cassette} {state}."),
    ]
    if kept is not None:
        lines.append(
            display(f"The failed recording is kept in {kept} (cassette inspect {kept} --tree).")
        )
    lines.append(display(f"Fix the test, then record again: {command}"))
    return "\n".join(lines)


def no_call_message(cassette: Path, provider: str, command: str) -> str:
    """The failure of a recording test that started no child through the cassette provider."""
    return display(
        f"subagent cassette {cassette} recorded no call, so nothing was committed: the harness "
        f'never started a child through the provider "{provider}". Start children with '
        f'cassette_registry.start("{provider}", request) (or the adapter built on '
        "cassette_registry), or drop the subagent_cassette fixture and marker from a test that "
        f"makes no subagent call; then record again: {command}"
    )


def missing_cassette_message(cassette: Path, command: str) -> str:
    """Replay-only mode and no cassette: the path and the command that records it."""
    return display(f"no subagent cassette at {cassette}; record it with: {command}")


def empty_cassette_message(cassette: Path, command: str) -> str:
    """Replay-only mode and a header-only cassette (an old failed recording)."""
    return display(
        f"subagent cassette {cassette} holds no recorded call (a header-only file, left by "
        f"a recording that made no call); record it again with: {command}"
    )
