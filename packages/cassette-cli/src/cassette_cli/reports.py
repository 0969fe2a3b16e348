"""Human reports of verify, inspect and diff, line for line as the reference prints them.

The renderers take typed values (report_values.py, tree.TreeCall); the `*_lines` functions
over the reference's own JSON documents read those strictly first, which is how the tests
hold the renderers against the reference's human output.
"""

from __future__ import annotations

from collections.abc import Sequence

from cassette_cli.decimals import one_decimal
from cassette_cli.display import display
from cassette_cli.documents import Document, js_number
from cassette_cli.report_values import DiffReport, SummaryReport, call_rows
from cassette_cli.tree import TreeCall

__all__ = [
    "call_lines",
    "diff_lines",
    "diff_report_lines",
    "inspect_lines",
    "row_lines",
    "summary_lines",
    "verify_line",
    "verify_text",
]


def verify_text(summary: SummaryReport) -> str:
    """`OK: <N> interaction(s), hash chain verified (<id>)` (CLI-5)."""
    return (
        f"OK: {js_number(summary.interactions)} interaction(s), hash chain verified "
        f"({display(summary.cassette_id)})"
    )


def summary_lines(summary: SummaryReport) -> list[str]:
    """The seven summary lines of `inspect` (CLI-6); `<memory>` when the source is unknown."""
    return [
        f"Cassette: {display(summary.cassette_id)}",
        f"File: {display(summary.file if summary.file is not None else '<memory>')}",
        f"Provider: {display(summary.cassette)} -> {display(summary.upstream)}",
        f"Interactions: {js_number(summary.interactions)}",
        f"Completed / failed / aborted: {js_number(summary.completed)} / "
        f"{js_number(summary.failed)} / {js_number(summary.aborted)}",
        f"Ambiguous duplicate groups: {js_number(summary.ambiguous_groups)}",
        f"Redacted results: {js_number(summary.redacted_results)}",
    ]


def row_lines(calls: Sequence[TreeCall]) -> list[str]:
    """`--show-calls` lines: sequence, call key, stop category or outcome kind, duration."""
    return [
        f"{js_number(call.sequence).rjust(4)}  {display(call.call_key)}  {call.term}  "
        f"{one_decimal(call.duration_ms)}ms"
        for call in calls
    ]


def _signed(value: int | float) -> str:
    return ("+" if value >= 0 else "") + one_decimal(value)


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def diff_report_lines(
    diff: DiffReport, expected: str, actual: str, *, show_calls: bool
) -> list[str]:
    """The eight summary lines of `diff` and, with show_calls, one line per change (CLI-7)."""
    lines = [
        f"Expected: {display(expected)}",
        f"Actual: {display(actual)}",
        f"Comparable / equivalent: {_yes_no(diff.comparable)} / {_yes_no(diff.equivalent)}",
        f"Interactions: {js_number(diff.expected_interactions)} -> "
        f"{js_number(diff.actual_interactions)}",
        f"Added / removed / outcome / boundary: {len(diff.added)} / {len(diff.removed)} / "
        f"{len(diff.outcome_changed)} / {len(diff.boundary_changed)}",
        f"Policy changes: {', '.join(diff.policy_changes) or 'none'}",
        f"Comparison issues: {', '.join(diff.issues) or 'none'}",
        f"Timing changes (informational): {js_number(len(diff.timing_changed))}",
    ]
    if not show_calls:
        return lines
    lines.extend(f"+ {display(call.call_key)}  {call.term}" for call in diff.added)
    lines.extend(f"- {display(call.call_key)}  {call.term}" for call in diff.removed)
    lines.extend(
        f"~ {display(change.before.call_key)}  outcome {change.before.term} -> {change.after.term}"
        for change in diff.outcome_changed
    )
    lines.extend(
        f"~ {display(change.call_key)}  boundary {', '.join(change.fields)}"
        for change in diff.boundary_changed
    )
    lines.extend(
        f"= {display(entry.expected_call_key)}  timing start "
        f"{_signed(entry.start_latency_delta_ms)}ms, duration {_signed(entry.delta_ms)}ms"
        for entry in diff.timing_changed
    )
    return lines


def verify_line(summary: Document) -> str:
    """`verify_text` of a `verify --json` summary document."""
    return verify_text(SummaryReport.from_document(summary))


def inspect_lines(summary: Document) -> list[str]:
    """`summary_lines` of an `inspect --json` document."""
    return summary_lines(SummaryReport.from_document(summary))


def call_lines(calls: Sequence[Document]) -> list[str]:
    """`row_lines` of `inspect --json --show-calls` call documents."""
    return row_lines(call_rows(list(calls)))


def diff_lines(diff: Document, expected: str, actual: str, *, show_calls: bool) -> list[str]:
    """`diff_report_lines` of a `diff --json` document."""
    return diff_report_lines(
        DiffReport.from_document(diff), expected, actual, show_calls=show_calls
    )
