"""The Python examples of README.md and docs/*.md, read as the docs test runs them (issue 27).

A ```python block is a standalone script, unless the line just above its fence is
`<!-- example: <project> <file> [record-env NAME=VALUE ...] [needs DIST ...] -->`: then it
is that file of a small pytest project made of every block of the page naming the same
project. A ```toml block so marked is a file of its project too (its `pyproject.toml`); an
unmarked one is not run. A project is recorded (`--subagent-cassette-mode=once`, with the
record-env settings) and then replayed offline. `needs` names a distribution the project
needs beyond cassette-provider and its extras (the page must say how to install it). HTML
comments do not show on the rendered page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

__all__ = ["Example", "Project", "read_examples"]

_FENCE: Final = re.compile(r"^```(?P<language>python|toml)\s*$")
_MARK: Final = re.compile(r"^<!-- example: (?P<project>\S+) (?P<file>\S+)(?P<rest>.*?) -->$")


@dataclass(frozen=True, slots=True)
class Example:
    """One standalone script: its page, the line of its fence and its source."""

    page: str
    line: int
    source: str


@dataclass(slots=True)
class Project:
    """The blocks of one page that make one pytest project, by file name."""

    page: str
    name: str
    files: dict[str, str] = field(default_factory=dict)
    record_env: dict[str, str] = field(default_factory=dict)
    needs: set[str] = field(default_factory=set)


def _block(lines: list[str], start: int) -> tuple[str, int]:
    """The source of the block whose fence is at `start`, and the index after its end."""
    body: list[str] = []
    index = start + 1
    while index < len(lines) and lines[index].strip() != "```":
        body.append(lines[index])
        index += 1
    return "\n".join(body) + "\n", index + 1


def _settings(project: Project, words: list[str]) -> None:
    """A mark's `record-env NAME=VALUE ...` and `needs DIST ...` words, into its project."""
    key = ""
    for word in words:
        if word in {"record-env", "needs"}:
            key = word
        elif key == "record-env":
            name, _, value = word.partition("=")
            project.record_env[name] = value
        elif key == "needs":
            project.needs.add(word)
        else:
            raise ValueError(f"{project.page}: unknown example setting {word!r}")


def read_examples(page: Path, root: Path) -> tuple[list[Example], list[Project]]:
    """The standalone scripts and the projects of one markdown page."""
    name = page.relative_to(root).as_posix()
    lines = page.read_text("utf-8").splitlines()
    scripts: list[Example] = []
    projects: dict[str, Project] = {}
    index = 0
    while index < len(lines):
        fence = _FENCE.match(lines[index])
        if fence is None:
            index += 1
            continue
        source, after = _block(lines, index)
        mark = _MARK.match(lines[index - 1].strip()) if index > 0 else None
        if mark is None:
            if fence["language"] == "python":
                scripts.append(Example(name, index + 1, source))
        else:
            project = projects.setdefault(mark["project"], Project(name, mark["project"]))
            project.files[mark["file"]] = source
            _settings(project, mark["rest"].split())
        index = after
    return scripts, list(projects.values())
