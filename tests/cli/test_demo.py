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
    # Replay ran with default settings (assert_consumed on, so dispose checked every
    # interaction) and reported the nested grandchild as covered by its delivered parent.
    replay_step = text.split("2. Replay offline", 1)[1].split("3. Verify", 1)[0]
    covered = [line.strip() for line in replay_step.splitlines() if " covered: " in line]
    assert covered == ["fact-check covered: inside review's recorded result, not re-run"]
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


def test_demo_replays_with_default_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # MATCH-4, issue 12
    import cassette_provider

    installed: list[object] = []
    real_install = cassette_provider.install_cassette

    def spy(registry: object, config: object) -> object:
        installed.append(config)
        return real_install(registry, config)  # type: ignore[arg-type]

    monkeypatch.setattr(cassette_provider, "install_cassette", spy)
    code = main(["demo", "--dir", str(tmp_path)], stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    replays = [c for c in installed if isinstance(c, cassette_provider.ReplayConfig)]
    assert len(replays) == 1
    assert replays[0] == cassette_provider.ReplayConfig(file=replays[0].file)  # all defaults
    assert replays[0].assert_consumed is True
