"""The CLI renders typed report values; documents are read strictly, never defaulted (issue 24)."""

from __future__ import annotations

import pytest
from cassette_cli.documents import DocumentShapeError
from cassette_cli.report_values import DiffReport, SummaryReport
from cassette_cli.reports import diff_report_lines, inspect_lines
from cassette_format import load_cassette
from cassette_topology import diff_cassettes
from cli.corpus import ReferenceRun, interop_path, json_stdout, runs_of

DIFFS = runs_of("diff-json")


@pytest.mark.parametrize("run", DIFFS, ids=[run.id for run in DIFFS])
def test_the_typed_diff_reads_as_the_reference_document_does(run: ReferenceRun) -> None:  # CLI-7
    """`diff` renders DiffReport.of(CassetteDiff); it equals the report of the JSON printed."""
    expected, actual = run.args[1], run.args[2]
    diff = diff_cassettes(
        load_cassette(interop_path(expected)), load_cassette(interop_path(actual))
    )
    typed = DiffReport.of(diff)
    assert typed == DiffReport.from_document(json_stdout(run))
    assert diff_report_lines(typed, expected, actual, show_calls=True)[2].startswith(
        "Comparable / equivalent: "
    )


def test_a_missing_member_is_refused_not_printed_as_zero() -> None:
    summary = json_stdout(runs_of("verify-json", exit_code=0)[0])
    assert SummaryReport.from_document(summary).interactions == summary["interactions"]
    misspelt = {("interaction" if key == "interactions" else key): v for key, v in summary.items()}
    with pytest.raises(DocumentShapeError, match="'interactions' must be a number, found absent"):
        inspect_lines(misspelt)
    mistyped = {**summary, "completed": "3"}
    with pytest.raises(DocumentShapeError, match="'completed' must be a number, found str"):
        inspect_lines(mistyped)
