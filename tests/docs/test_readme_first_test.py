"""The README's first test does what the README says, line for line (issue 27).

The project is the README's own two blocks. It records and replays as the README's console
shows, with pytest-asyncio installed and with no async plugin at all (no configuration either
way), and after the README's edit (the docs prompt becomes "Check the docs twice") the replay
prints the README's report lines: the closest recorded call, the re-record command and the
mismatch. Every run is offline, without an API key, and leaves no partial recording.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path

import pytest
from support.paths import ROOT

from docs.markdown_examples import read_examples
from docs.test_examples import leftovers, offline_env, run

README = ROOT / "README.md"
EDIT = ('"docs": "Check the docs"', '"docs": "Check the docs twice"')


def console_runs(text: str) -> list[tuple[str, list[str]]]:
    """Each `$ pytest ...` line of the page's console blocks and the output lines shown under it.

    A `# comment` after the command is dropped; `...` in an output line stands for any text.
    """
    runs: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
        shown: list[str] | None = None  # the output lines of the block's current pytest run
        for line in block.splitlines():
            if line.startswith("$ pytest"):
                shown = []
                runs.append((line[2:].split("  #", 1)[0].strip(), shown))
            elif line.startswith("$"):
                shown = None  # another command's output
            elif shown is not None and line.strip():
                shown.append(line)
    return runs


def _pattern(line: str) -> str:
    """An output line as an fnmatch pattern: `...` is anything; a header's rule any width."""
    escaped = line.replace("[", "[[]").replace("...", "*")
    return re.sub(r"_{3,}", "*", escaped)


def _shown(expected: list[str], output: str) -> list[str]:
    """The expected lines not found, in order, among the output's lines."""
    lines = output.splitlines()
    missing: list[str] = []
    start = 0
    for line in expected:
        pattern = _pattern(line)
        found = next(
            (i for i in range(start, len(lines)) if fnmatch.fnmatch(lines[i], pattern)), None
        )
        if found is None:
            missing.append(line)
        else:
            start = found + 1
    return missing


def test_the_console_reader_can_fail() -> None:
    runs = console_runs("```console\n$ pytest a.py   # note\nok 1\n$ ls\nx\n```\n")
    assert runs == [("pytest a.py", ["ok 1"])]
    assert _shown(["ok ..."], "x\nok 1\n") == []
    assert _shown(["ok 2"], "ok 1\n") == ["ok 2"]


@pytest.mark.parametrize("plugins", [(), ("-p", "no:asyncio")], ids=["pytest-asyncio", "none"])
def test_the_readme_first_test_prints_what_the_readme_shows(
    tmp_path: Path, plugins: tuple[str, ...]
) -> None:
    text = README.read_text("utf-8")
    (project,) = [p for p in read_examples(README, ROOT)[1] if p.name == "first-test"]
    for name, source in project.files.items():
        (tmp_path / name).write_text(source, "utf-8")
    record, replay, changed = console_runs(text)[:3]
    assert record[0] == "pytest --subagent-cassette-mode=once test_planner.py"
    assert replay[0] == changed[0] == "pytest test_planner.py"
    python = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *plugins]
    for command, expected in (record, replay):
        done = run([*python, *command.split()[1:]], tmp_path, offline_env())
        assert done.returncode == 0, done.stdout + done.stderr
        assert _shown(expected, done.stdout) == [], done.stdout
    assert (tmp_path / "cassettes/test_planner/test_planner_delegates.cassette.jsonl").is_file()
    assert "Check the docs twice" in text  # the edit the README describes
    test_file = tmp_path / "test_planner.py"
    test_file.write_text(test_file.read_text("utf-8").replace(*EDIT), "utf-8")
    done = run([*python, *changed[0].split()[1:]], tmp_path, offline_env())
    assert done.returncode == 1, done.stdout + done.stderr
    assert _shown(changed[1], done.stdout) == [], done.stdout
    assert "Check the docs" not in done.stdout  # the report shows no prompt
    assert leftovers(tmp_path) == []
