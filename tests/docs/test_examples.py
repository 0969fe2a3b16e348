"""Every Python example in README.md and docs/*.md runs, offline and without an API key.

Standalone blocks run as scripts; pytest-project blocks (markdown_examples) are recorded with
`--subagent-cassette-mode=once` and then replayed with the network blocked, in a fresh folder,
in a subprocess whose environment holds no `*_API_KEY`. Neither run may leave a partial
recording behind.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.partial_guard import leftovers_under
from support.paths import ROOT

from docs.markdown_examples import Example, Project, read_examples

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SCRIPTS: list[Example] = []
PROJECTS: list[Project] = []
for _page in PAGES:
    _scripts, _projects = read_examples(_page, ROOT)
    SCRIPTS += _scripts
    PROJECTS += _projects


def offline_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment without credentials or a preset cassette mode."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY") and not key.startswith(("SUBAGENT_CASSETTE", "PYTEST_"))
    }
    env.update(extra or {})
    return env


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def leftovers(folder: Path) -> list[str]:
    """Partial or temporary recordings a run left in the example's folder."""
    return leftovers_under(folder)


def test_every_page_with_python_has_examples_that_run() -> None:
    """The collection itself can fail: the README's first test is a project here."""
    assert any(project.page == "README.md" for project in PROJECTS)
    assert SCRIPTS


def test_every_test_module_example_is_marked_as_a_project() -> None:
    """A block defining `test_*` functions is a project: run as a script, its tests never run."""
    never_run = [
        f"{example.page}:{example.line}"
        for example in SCRIPTS
        if re.search(r"^(async )?def test_", example.source, flags=re.MULTILINE)
    ]
    assert never_run == []


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: f"{p.page}:{p.name}")
def test_what_an_example_needs_beyond_the_extras_is_installed_on_its_page(
    project: Project,
) -> None:
    page = (ROOT / project.page).read_text("utf-8")
    for dist in project.needs:
        assert f"pip install {dist}" in page, f"{project.page} never says how to install {dist}"


@pytest.mark.parametrize("example", SCRIPTS, ids=lambda e: f"{e.page}:{e.line}")
def test_a_script_example_runs(example: Example, tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(example.source, "utf-8")
    done = run([sys.executable, str(script)], tmp_path, offline_env())
    assert done.returncode == 0, done.stdout + done.stderr
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("project", PROJECTS, ids=lambda p: f"{p.page}:{p.name}")
def test_a_pytest_example_records_then_replays_offline(project: Project, tmp_path: Path) -> None:
    for name, source in project.files.items():
        (tmp_path / name).write_text(source, "utf-8")
    pytest_args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    if "pytest-asyncio" not in project.needs:  # what the extras install: no async plugin
        pytest_args += ["-p", "no:asyncio"]
    recorded = run(
        [*pytest_args, "--subagent-cassette-mode=once"], tmp_path, offline_env(project.record_env)
    )
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    recordings = [*tmp_path.rglob("*.cassette.jsonl"), *tmp_path.rglob("*.sessions")]
    assert recordings, "the example recorded nothing"
    replayed = run([*pytest_args, "--subagent-block-network"], tmp_path, offline_env())
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    if "subagent cassettes:" in replayed.stdout:  # model-session-only examples have no line
        assert " 0 recorded, 0 live call(s)" in replayed.stdout
    assert leftovers(tmp_path) == []
