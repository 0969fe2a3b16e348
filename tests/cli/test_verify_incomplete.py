"""`verify` names partial recordings on stderr; its documents stay the same (issue 12, D-4)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

from cassette_cli import main
from cassette_format.write.partial import new_partial_path
from support.paths import INTEROP

VALID = INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl"
OK_LINE = "OK: 5 interaction(s), hash chain verified (942c29e9-db09-4027-b262-510b60dc50e9)\n"


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def _interrupted(path: Path) -> Path:
    """A partial recording beside `path`, named as this (running) process's writer names it."""
    partial = Path(new_partial_path(os.path.realpath(path)))
    shutil.copy(VALID, partial)
    return partial


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _as_dead_writer(partial: Path) -> Path:
    """The same partial file, named as if a process that has exited had written it."""
    stem, _, token = partial.name.rpartition("-")
    base = stem.rpartition("-")[0]
    renamed = partial.with_name(f"{base}-{_dead_pid()}-{token}")
    os.rename(partial, renamed)
    return renamed


def test_a_partial_sibling_is_named_on_stderr_only(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    shutil.copy(VALID, path)
    clean = run("verify", str(path))
    clean_json = run("verify", str(path), "--json")
    assert clean == (0, OK_LINE, "")
    partial = _interrupted(path)
    code, out, err = run("verify", str(path))
    assert (code, out) == clean[:2]  # the reference's line is byte-for-byte the same
    assert err == (
        f'warning: incomplete recording "{partial}" beside "{path}"; '
        f"its writer (pid {os.getpid()}) is still running: not committed yet\n"
    )
    code, out, err = run("verify", str(path), "--json")
    assert (code, out) == clean_json[:2]  # the JSON document gains nothing
    assert f'incomplete recording "{partial}"' in err


def test_an_interrupted_writer_is_reported_as_gone(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    shutil.copy(VALID, path)
    partial = _as_dead_writer(_interrupted(path))
    _, _, err = run("verify", str(path))
    assert err.splitlines() == [
        f'warning: incomplete recording "{partial}" beside "{path}"; its writer '
        f"(pid {partial.name.split('-')[-2]}) is gone: the recording was interrupted; "
        f"remove it with: rm {partial}"
    ]


def test_a_failed_test_recording_is_named_with_its_removal_command(tmp_path: Path) -> None:
    path = tmp_path / "c d.cassette.jsonl"
    shutil.copy(VALID, path)
    failed = tmp_path / "c d.cassette.jsonl.failed"
    shutil.copy(VALID, failed)
    code, out, err = run("verify", str(path))
    assert (code, out) == (0, OK_LINE)
    assert err.splitlines() == [
        f'note: "{failed}" holds a failed test\'s recording of "{path}", never committed; '
        f"remove it with: rm '{failed}'"
    ]


def test_verifying_the_partial_file_says_it_is_incomplete(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    partial = _interrupted(path)
    code, out, err = run("verify", str(partial))
    assert (code, out) == (0, OK_LINE)
    assert err.startswith(f'warning: "{partial}" is an incomplete recording of "{path}"; ')


def test_a_missing_target_still_names_its_partial(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    partial = _interrupted(path)
    code, out, err = run("verify", str(path))
    assert (code, out) == (1, "")
    warning, failure = err.splitlines()
    assert warning.startswith(f'warning: incomplete recording "{partial}" beside "{path}"')
    assert str(path) in failure


def test_many_files_name_their_partials(tmp_path: Path) -> None:
    left, right = tmp_path / "a.cassette.jsonl", tmp_path / "b.cassette.jsonl"
    shutil.copy(VALID, left)
    shutil.copy(VALID, right)
    partial = _interrupted(right)
    code, out, err = run("verify", str(tmp_path))
    assert code == 0
    assert "2 cassette(s): 2 verified, 0 failed" in out  # a partial is never taken as a cassette
    assert str(partial) not in out
    assert err == (
        f'warning: incomplete recording "{partial}" beside "{right}"; '
        f"its writer (pid {os.getpid()}) is still running: not committed yet\n"
    )
