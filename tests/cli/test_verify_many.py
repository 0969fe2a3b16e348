"""`verify` over many paths, directories and globs, in worker processes (beyond the reference)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from cassette_cli import main
from support.paths import INTEROP

CASSETTES = INTEROP / "cassettes"
VALID = "valid-metadata-basic.cassette.jsonl"
OTHER_VALID = "valid-errors.cassette.jsonl"
TAMPERED = "invalid-tamper-content.cassette.jsonl"
ERRORS_ID = "c82d9af2-3677-40cd-87d7-d664cc9dcf6c"


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "nested" / "deeper").mkdir(parents=True)
    shutil.copy(CASSETTES / VALID, tmp_path / "a.cassette.jsonl")
    shutil.copy(CASSETTES / TAMPERED, tmp_path / "nested" / "broken.cassette.jsonl")
    shutil.copy(CASSETTES / OTHER_VALID, tmp_path / "nested" / "deeper" / "c.cassette.jsonl")
    (tmp_path / "notes.jsonl").write_text("not a cassette\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str, stderr: io.StringIO | None = None) -> tuple[int, str, str]:
    stdout, errors = io.StringIO(), stderr or io.StringIO()
    code = main(["verify", *args], stdout=stdout, stderr=errors)
    return code, stdout.getvalue(), errors.getvalue()


EXPECTED_LINES = [
    "OK    ./a.cassette.jsonl  5 interaction(s)  (942c29e9-db09-4027-b262-510b60dc50e9)",
    "FAIL  ./nested/broken.cassette.jsonl  line 3 hash mismatch",
    "OK    ./nested/deeper/c.cassette.jsonl  4 interaction(s)  (" + ERRORS_ID + ")",
    "3 cassette(s): 2 verified, 1 failed",
]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_directory_is_searched_recursively_and_a_failure_is_named(folder: Path, jobs: str) -> None:
    code, stdout, stderr = run(".", "--jobs", jobs)
    assert code == 1
    assert stdout.split("\n")[:-1] == EXPECTED_LINES
    assert stderr == ""  # no progress bar when stderr is not a terminal


def test_all_valid_exits_zero(folder: Path) -> None:
    code, stdout, _ = run("a.cassette.jsonl", "nested/deeper")
    assert code == 0
    assert stdout.endswith("2 cassette(s): 2 verified, 0 failed\n")


def test_globs_expand_and_files_are_checked_once(folder: Path) -> None:
    code, stdout, _ = run("**/*.cassette.jsonl", "a.cassette.jsonl", "--jobs=2")
    assert code == 1
    assert stdout.split("\n")[:-1] == [
        "OK    a.cassette.jsonl  5 interaction(s)  (942c29e9-db09-4027-b262-510b60dc50e9)",
        "FAIL  nested/broken.cassette.jsonl  line 3 hash mismatch",
        "OK    nested/deeper/c.cassette.jsonl  4 interaction(s)  (" + ERRORS_ID + ")",
        "3 cassette(s): 2 verified, 1 failed",
    ]


def test_arguments_naming_nothing_fail(folder: Path) -> None:
    (folder / "empty").mkdir()
    code, stdout, _ = run("a.cassette.jsonl", "empty", "*.nothing", "missing.cassette.jsonl")
    lines = stdout.split("\n")[:-1]
    assert code == 1
    assert lines[0].startswith("OK    a.cassette.jsonl")
    assert lines[1].startswith('FAIL  missing.cassette.jsonl  cannot read cassette "')
    assert lines[2:] == [
        "FAIL  empty  no *.cassette.jsonl files in this directory",
        "FAIL  *.nothing  no file matches this pattern",
        "4 cassette(s): 1 verified, 3 failed",
    ]


def test_json_document_lists_every_file(folder: Path) -> None:
    code, stdout, stderr = run(".", "--json", "--jobs", "2", stderr=FakeTerminal())
    document = json.loads(stdout)
    assert code == 1
    assert stderr == ""  # no progress with --json, even on a terminal
    assert [document[key] for key in ("cassettes", "verified", "failed")] == [3, 2, 1]
    files = document["files"]
    assert [Path(entry["file"]).name for entry in files] == [
        "a.cassette.jsonl",
        "broken.cassette.jsonl",
        "c.cassette.jsonl",
    ]
    assert files[0]["summary"]["interactions"] == 5
    assert files[1] == {
        "file": str(folder / "nested" / "broken.cassette.jsonl"),
        "ok": False,
        "error": "line 3 hash mismatch",
    }


def test_progress_goes_to_a_terminal_stderr_only(folder: Path) -> None:
    code, stdout, stderr = run(".", stderr=FakeTerminal())
    assert code == 1
    assert stdout.split("\n")[:-1] == EXPECTED_LINES  # stdout is unchanged
    assert "3/3" in stderr
    assert stderr.endswith("\r\x1b[K")  # the bar is erased when done


def test_colour_only_when_asked_or_on_a_terminal(folder: Path) -> None:
    assert "\x1b[" not in run(".")[1]
    assert "\x1b[31mFAIL\x1b[0m" in run(".", "--color", "always")[1]
    assert "\x1b[" not in run(".", "--color", "never")[1]


def test_single_plain_file_keeps_the_reference_output(folder: Path) -> None:  # CLI-5
    assert run("a.cassette.jsonl") == (
        0,
        "OK: 5 interaction(s), hash chain verified (942c29e9-db09-4027-b262-510b60dc50e9)\n",
        "",
    )


def test_spawned_workers_give_the_same_report(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # fork is used only when no other thread runs; the spawn fallback must work as well.
    import multiprocessing

    from cassette_cli import verify_many

    monkeypatch.setattr(verify_many, "_context", lambda: multiprocessing.get_context("spawn"))
    code, stdout, _ = run(".", "--jobs", "2")
    assert code == 1
    assert stdout.split("\n")[:-1] == EXPECTED_LINES


def test_python_dash_m_with_workers(folder: Path) -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "cassette_cli", "verify", ".", "--jobs", "2"],
        capture_output=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (1, b"")
    assert done.stdout.decode("utf-8").split("\n")[:-1] == EXPECTED_LINES
