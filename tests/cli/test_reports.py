"""Human reports rendered from the reference's own JSON documents equal its human output."""

from __future__ import annotations

import pytest
from cassette_cli.reports import call_lines, diff_lines, inspect_lines, verify_line
from cli.corpus import ReferenceRun, json_stdout, reference_runs, runs_of

RUNS = {run.id: run for run in reference_runs()}


def _lines(text: str) -> list[str]:
    assert text.endswith("\n")
    return text[:-1].split("\n")


def _partner(run: ReferenceRun, command: str) -> ReferenceRun:
    return RUNS[f"{run.case}:{command}"]


VERIFY = runs_of("verify", exit_code=0)
INSPECT = runs_of("inspect-show-calls", exit_code=0)
DIFF = runs_of("diff-show-calls")


@pytest.mark.parametrize("run", VERIFY, ids=[run.id for run in VERIFY])
def test_verify_line_from_summary_document(run: ReferenceRun) -> None:  # CLI-5, CLI-8
    summary = json_stdout(_partner(run, "verify-json"))
    assert _lines(run.stdout) == [verify_line(summary)]


@pytest.mark.parametrize("run", INSPECT, ids=[run.id for run in INSPECT])
def test_inspect_lines_from_summary_document(run: ReferenceRun) -> None:  # CLI-6, CLI-10
    document = json_stdout(_partner(run, "inspect-json-show-calls"))
    assert _lines(run.stdout) == inspect_lines(document) + call_lines(document["calls"])


@pytest.mark.parametrize("run", DIFF, ids=[run.id for run in DIFF])
def test_diff_lines_from_diff_document(run: ReferenceRun) -> None:  # CLI-7
    document = json_stdout(_partner(run, "diff-json"))
    expected_path, actual_path = run.args[1], run.args[2]
    rendered = diff_lines(document, expected_path, actual_path, show_calls=True)
    assert _lines(run.stdout) == rendered
    assert rendered[:8] == diff_lines(document, expected_path, actual_path, show_calls=False)


def test_the_corpus_exercises_every_renderer() -> None:
    assert len(VERIFY) >= 20
    assert len(INSPECT) >= 20
    assert len(DIFF) == 8
