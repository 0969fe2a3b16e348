"""Session-log files on a hostile file system: no planted name followed, private (issue 26)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cassette_format.sessions import SESSION_LOG_WRITE
from cassette_provider.models import (
    SessionLogFormatError,
    harvest_session_logs_sync,
    replace_session_logs_sync,
    write_session_logs_sync,
)
from llmreplay.builders import log

LOGS = [
    log("p", "2026-08-18T00:00:00Z", [({"q": 1}, {"a": 1})]),
    log("c", "2026-08-18T00:00:01Z", [], parent="p"),
]


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def _victim(tmp_path: Path) -> Path:
    victim = tmp_path / "victim"
    victim.write_text("precious")
    return victim


def test_a_symlink_at_the_old_temporary_name_is_never_followed(tmp_path: Path) -> None:
    directory = tmp_path / "t.sessions"
    directory.mkdir()
    victim = _victim(tmp_path)
    os.symlink(victim, directory / ".session.jsonl.tmp")  # the name a writer once used
    written = write_session_logs_sync(directory, LOGS)
    assert victim.read_text() == "precious"
    assert [p.name for p in written] == ["session.jsonl", "session.1.jsonl"]
    assert len(harvest_session_logs_sync(directory)) == 2
    leftovers = {p.name for p in directory.iterdir()} - {p.name for p in written}
    assert leftovers == {".session.jsonl.tmp"}  # only the planted link, untouched


@pytest.mark.usefixtures("umask_022")
def test_new_session_logs_are_private(tmp_path: Path) -> None:
    for path in write_session_logs_sync(tmp_path / "t.sessions", LOGS):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_symlinked_session_directory_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "someone-elses"
    elsewhere.mkdir()
    directory = tmp_path / "t.sessions"
    os.symlink(elsewhere, directory)
    with pytest.raises(SessionLogFormatError) as refused:
        write_session_logs_sync(directory, LOGS)
    assert refused.value.code == SESSION_LOG_WRITE
    assert str(refused.value) == (
        f'session directory "{directory}" is a symbolic link and is never followed; '
        "remove it if it is not yours"
    )
    assert list(elsewhere.iterdir()) == []
    with pytest.raises(SessionLogFormatError):
        replace_session_logs_sync(directory, LOGS)
    assert os.path.islink(directory)
    assert list(elsewhere.iterdir()) == []


def test_rewrite_stages_in_a_fresh_directory_not_the_fixed_name(tmp_path: Path) -> None:
    directory = tmp_path / "t.sessions"
    write_session_logs_sync(directory, LOGS[:1])
    directory.chmod(0o750)
    elsewhere = tmp_path / "someone-elses"
    elsewhere.mkdir()
    os.symlink(elsewhere, tmp_path / "t.sessions.rewrite")  # the name rewrite once staged at
    written = replace_session_logs_sync(directory, LOGS)
    assert list(elsewhere.iterdir()) == []
    assert not directory.is_symlink()
    assert stat.S_IMODE(directory.stat().st_mode) == 0o750  # the replaced directory's mode
    assert sorted(p.name for p in directory.iterdir()) == sorted(p.name for p in written)
    assert len(harvest_session_logs_sync(directory)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "someone-elses",
        "t.sessions",
        "t.sessions.rewrite",
    ]
