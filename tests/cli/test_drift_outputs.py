"""`cassette diff --drift` and `--format markdown` (issue 25); the reference's output unchanged."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from cassette_cli import main
from cli.corpus import ReferenceRun, reference_runs
from cli.recorded_runs import CANARY, HOSTILE, record
from support.paths import INTEROP

REFERENCE_DIFFS = [case for case in reference_runs() if case.args[0] == "diff"]

THREE = {"alpha": "alpha prompt", "beta": "beta prompt", "gamma": "gamma prompt"}
CHANGED = {"alpha": "alpha prompt", "beta": "beta prompt, longer", "delta": "delta prompt"}


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    old = record(tmp_path / "old.cassette.jsonl", {k: f"{CANARY} {v}" for k, v in THREE.items()})
    new = record(tmp_path / "new.cassette.jsonl", {k: f"{CANARY} {v}" for k, v in CHANGED.items()})
    return str(old), str(new)


def test_drift_lines_follow_the_reference_lines_unchanged(pair: tuple[str, str]) -> None:
    old, new = pair
    for extra in ((), ("--show-calls",)):
        code, plain, _ = run("diff", old, new, *extra)
        drift_code, drifted, _ = run("diff", old, new, "--drift", *extra)
        assert code == drift_code == 2
        assert drifted.startswith(plain)  # the reference's lines, byte for byte, first
        added = drifted[len(plain) :].splitlines()
        assert added[0] == (
            "Drift: 1 unchanged, 1 added, 1 removed, 1 request changed, "
            "0 parent context changed, 0 outcome changed, 0 boundary changed"
        )
        kinds = sorted(line.split("  ")[1] for line in added[1:])
        assert kinds == ["added", "removed", "request changed"]
        assert any("promptBytes" in line and "->" in line for line in added[1:])
    assert CANARY not in drifted


def test_drift_json_is_its_own_document(pair: tuple[str, str]) -> None:
    old, new = pair
    code, text, _ = run("diff", old, new, "--drift", "--json")
    assert code == 2
    document = json.loads(text)
    assert document["schemaVersion"] == 1
    assert document["counts"]["request-changed"] == 1
    (changed,) = [entry for entry in document["entries"] if entry["kind"] == "request-changed"]
    assert changed["requestMembers"] == ["promptBytes 57→65"]
    assert CANARY not in text
    assert run("diff", old, new, "--json")[1] != text  # plain --json stays the DIFF-7 document
    assert run("diff", old, new, "--format", "json")[1] == run("diff", old, new, "--json")[1]


def _cells(row: str) -> list[str]:
    """A Markdown table row split on unescaped pipes, as GFM splits it."""
    assert row.startswith("| ")
    assert row.endswith(" |")
    return re.split(r"(?<!\\) \| ", row[2:-2])


def test_markdown_table_escapes_every_cassette_string(tmp_path: Path) -> None:
    old = record(tmp_path / "old.cassette.jsonl", {"keep": f"{CANARY} keep"})
    labels = {label: f"{CANARY} {index}" for index, label in enumerate(HOSTILE)}
    new = record(tmp_path / "new|`<b>.cassette.jsonl", {"keep": f"{CANARY} keep", **labels})
    code, text, _ = run("diff", str(old), str(new), "--format", "markdown")
    assert code == 2
    assert CANARY not in text
    lines = text.splitlines()
    assert lines[0].startswith("### Cassette drift: ")
    assert "new\\|\\`\\<b\\>" in lines[0]
    header = lines.index("| Change | Call | Label | What differs |")
    rows = lines[header + 2 :]
    assert len(rows) == len(HOSTILE)  # one row per added call: no label broke a line
    for row in rows:
        cells = _cells(row)
        assert len(cells) == 4  # no pipe ended a cell early
        assert cells[0] == "added"
        body = "".join(cells[1:])
        assert "<" not in body.replace("\\<", "")  # no raw HTML
        assert "`" not in body.replace("\\`", "")  # no code span opened
        assert "\n" not in body
    assert any("\\<script\\>alert\\(1\\)\\<\\/script\\>" in row for row in rows)
    assert any("line\\\\u\\{000a\\}break" in row for row in rows)


def test_markdown_exit_codes_are_diffs(pair: tuple[str, str], tmp_path: Path) -> None:
    old, _ = pair
    code, text, _ = run("diff", old, old, "--format", "markdown")
    assert code == 0
    assert text.rstrip("\n").endswith("No call changed.")
    code, _, err = run("diff", old, str(tmp_path / "missing.cassette.jsonl"), "--format=markdown")
    assert code == 1
    assert err
    assert run("diff", old, old, "--format", "yaml")[0] == 1
    assert run("diff", old, old, "--format", "markdown", "--json")[0] == 1


@pytest.mark.parametrize("case", REFERENCE_DIFFS, ids=lambda case: case.id)
def test_reference_cases_print_the_same_bytes_with_drift_after(
    case: ReferenceRun, monkeypatch: pytest.MonkeyPatch
) -> None:  # CLI-7, DIFF-7, D-4: new options add output, never change the reference's
    monkeypatch.chdir(INTEROP)
    code, drifted, _ = run(*case.args, "--drift")
    assert code == case.exit_code
    if "--json" in case.args:
        assert json.loads(drifted)["schemaVersion"] == 1  # the drift document instead
    else:
        assert drifted.startswith(case.stdout)
        assert drifted[len(case.stdout) :].startswith("Drift: ")
