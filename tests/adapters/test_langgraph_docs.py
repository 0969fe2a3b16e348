"""docs/langgraph.md's examples run as written: offline, no API key (issue 27).

The complete example runs as a script; the pytest example runs as a test file in a fresh
project, recorded by the plugin's `once` mode and replayed with `none`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cassette_format import verify_file
from support.paths import ROOT

pytest.importorskip("langgraph")

pytestmark = pytest.mark.timeout(120)

PAGE = ROOT / "docs" / "langgraph.md"


def examples() -> list[str]:
    """The page's Python examples, in page order."""
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


def run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run Python in `tmp_path` (temporary files there too), with no API key set."""
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    env.pop("OPENAI_API_KEY", None)
    env.pop("SUBAGENT_CASSETTE_MODE", None)
    return subprocess.run(
        [sys.executable, *args], check=False, cwd=tmp_path, env=env, capture_output=True, text=True
    )


def test_the_complete_example_records_and_replays(tmp_path: Path) -> None:
    script = tmp_path / "example.py"
    script.write_text(examples()[0], encoding="utf-8")
    ran = run(tmp_path, str(script))
    assert ran.returncode == 0, ran.stderr
    assert "billing: looks fine" in ran.stdout
    (cassette,) = tmp_path.glob("*/report.cassette.jsonl")
    assert verify_file(cassette)["interactions"] == 3
    assert not [p.name for p in cassette.parent.iterdir() if "partial" in p.name]


def test_the_pytest_example_records_then_replays(tmp_path: Path) -> None:
    (tmp_path / "test_report.py").write_text(examples()[1], encoding="utf-8")
    for mode, summary in (("once", "1 recorded"), ("none", "1 test(s) replayed")):
        ran = run(
            tmp_path,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--subagent-cassette-mode={mode}",
        )
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert summary in ran.stdout
    (cassette,) = tmp_path.glob("cassettes/test_report/*.cassette.jsonl")
    assert verify_file(cassette)["interactions"] == 1
