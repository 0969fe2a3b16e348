"""`cassette demo` records, replays offline, verifies, inspects and diffs, and exits 0."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import pytest
from cassette_cli import main
from cassette_format import load_cassette, verify_file


def test_demo_runs_offline_and_its_cassette_verifies(tmp_path: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["demo", "--dir", str(tmp_path)], stdout=stdout, stderr=stderr)
    text = stdout.getvalue()
    assert (code, stderr.getvalue()) == (0, "")
    recorded = tmp_path / "recorded.cassette.jsonl"
    summary = verify_file(recorded)
    # Three children, the nested grandchild; one child failed after publication.
    assert summary["interactions"] == 4
    assert summary["completed"] == 3
    assert summary["failed"] == 1
    cassette = load_cassette(recorded)
    nested = [item for item in cassette.interactions if item.parent_key != "root"]
    assert len(nested) == 1
    assert nested[0].call_key.startswith("root/review-")
    for label in ("research", "review", "deploy"):
        assert any(
            line.strip().startswith(label) and line.endswith("its own recorded outcome")
            for line in text.splitlines()
        ), label
    assert "OK: 4 interaction(s), hash chain verified" in text
    assert "Comparable / equivalent: yes / no" in text
    assert "\x1b[" not in text  # a buffer is no terminal: no colour
    assert "Three sources agree" not in text  # results are never printed


def test_demo_in_a_temporary_directory_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    code = main(["demo"], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    assert list(tmp_path.iterdir()) == []
