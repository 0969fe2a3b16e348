"""The README's demo and command-line tour print what the README shows, line for line.

Every `$ ...` command of the README's console blocks up to its pytest section is run in a
fresh folder, in order (`cassette ...` through `cassette_cli.main`, plus the tour's `cp`,
`sed -i 'Ns/A/B/'` and `echo $?`), and its output is compared with the lines shown under it,
whole: ids, durations, the run time and the demo folder's absolute path are the only parts
that may differ, and a shown line `...<words>...` stands for any number of lines. A console
block whose output drifted from the program fails here until the README follows. (Here in
tests/cli, not tests/docs, because CI runs each folder with only its package installed.)
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import shutil
from pathlib import Path

import pytest
from cassette_cli import main
from support.paths import ROOT

README = ROOT / "README.md"
#: The absolute folder the README's transcripts were taken in.
README_FOLDER = "/tmp/tourdir"
_VARYING = (
    (re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"), "<id>"),
    (re.compile(r"[-+]?\d+\.\dms"), "<ms>"),
    (re.compile(r"Done in \d+\.\d s"), "Done in <s> s"),
)


def tour(text: str) -> list[tuple[str, list[str]]]:
    """Each `$ command` of the console blocks before the first pytest run, with its lines."""
    runs: list[tuple[str, list[str]]] = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
        for line in block.splitlines():
            if line.startswith("$ pytest"):
                return runs
            if line.startswith("$ "):
                runs.append((line[2:].split("  #", 1)[0].strip(), []))
            elif runs:
                runs[-1][1].append(line)
    return runs


def normalized(line: str, folder: Path) -> str:
    """A line with what differs from run to run replaced by a placeholder."""
    line = line.replace(str(folder), README_FOLDER)
    for pattern, placeholder in _VARYING:
        line = pattern.sub(placeholder, line)
    return line.rstrip()


def differences(shown: list[str], printed: list[str]) -> list[str]:
    """Where the printed lines differ from the shown ones (`...x...` shows any lines)."""
    index = 0
    for position, line in enumerate(shown):
        if line.strip().startswith("...") and line.strip().endswith("..."):
            following = shown[position + 1 : position + 2]
            while index < len(printed) and printed[index] not in following:
                index += 1
            continue
        if index >= len(printed) or printed[index] != line:
            found = printed[index] if index < len(printed) else "<end of output>"
            return [f"shown {line!r}, printed {found!r}"]
        index += 1
    return [f"not shown {line!r}" for line in printed[index:]]


def _sed(words: list[str], folder: Path) -> None:
    """`sed -i 'Ns/A/B/' FILE`: the one edit the tour makes."""
    edit = re.fullmatch(r"(\d+)s/(.*?)/(.*?)/", words[2])
    assert words[1] == "-i", words
    assert edit is not None, words
    path = folder / words[3]
    lines = path.read_bytes().decode("utf-8").splitlines(keepends=True)
    number = int(edit[1]) - 1
    lines[number] = lines[number].replace(edit[2], edit[3], 1)
    path.write_bytes("".join(lines).encode("utf-8"))


def run_command(command: str, folder: Path, last_code: int) -> tuple[str, int]:
    """The output (stdout then stderr) and exit code of one tour command, run in `folder`."""
    words = shlex.split(command)
    if words[:2] == ["uv", "run"]:
        words = words[2:]
    if words == ["echo", "$?"]:
        return f"{last_code}\n", 0
    if words[0] == "cp":
        shutil.copyfile(folder / words[1], folder / words[2])
        return "", 0
    if words[0] == "sed":
        _sed(words, folder)
        return "", 0
    assert words[0] == "cassette", f"the tour test cannot run {command!r}"
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.chdir(folder):
        code = main(words[1:], stdout=stdout, stderr=stderr)
    return stdout.getvalue() + stderr.getvalue(), code


def test_the_tour_reader_and_comparison_can_fail() -> None:
    runs = tour("```console\n$ cassette x  # note\na\n```\n```console\n$ pytest\nb\n```\n")
    assert runs == [("cassette x", ["a"])]
    assert differences(["a", "...any...", "c"], ["a", "b", "b", "c"]) == []
    assert differences(["a"], ["a", "b"]) == ["not shown 'b'"]
    assert differences(["a", "c"], ["a", "b"]) == ["shown 'c', printed 'b'"]


def test_the_readme_demo_and_tour_print_what_the_readme_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    runs = tour(README.read_text("utf-8"))
    assert runs[0][0] == "uv run cassette demo --dir demo"
    code = 0
    for command, shown in runs:
        output, code = run_command(command, tmp_path, code)
        printed = [normalized(line, tmp_path) for line in output.splitlines()]
        expected = [normalized(line, Path(README_FOLDER)) for line in shown]
        assert differences(expected, printed) == [], f"$ {command}\n" + "\n".join(printed)
