"""`cassette diff --format markdown`: the drift report as a Markdown table (issue 25).

Fit for a pull-request comment or `$GITHUB_STEP_SUMMARY`. Metadata only: call keys, labels,
kinds, member names and JSON paths, never a prompt, result or error body. Every string that
comes from a cassette or the command line is escaped: control and format characters as
`\\u{hex}` (CLI-8), then every ASCII punctuation character backslash-escaped, so no pipe,
backtick, asterisk, bracket or `<` can end a cell, open code, emphasis, a link or HTML.
"""

from __future__ import annotations

import re
from typing import Final

from cassette_topology.diff import CassetteDiff
from cassette_topology.drift import DriftReport
from cassette_topology.drift_terms import KIND_TITLES, counts_line, entry_details, entry_keys

from cassette_cli.display import display

__all__ = ["markdown_report", "markdown_text"]

_PUNCTUATION: Final = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_text(value: str) -> str:
    """A cassette-derived string as inert Markdown text on one line."""
    return _PUNCTUATION.sub(r"\\\1", display(value))


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


def markdown_report(diff: CassetteDiff, drift: DriftReport, expected: str, actual: str) -> str:
    """A heading, the verdict, the drift counts and one table row per changed identity."""
    lines = [
        f"### Cassette drift: {markdown_text(expected)} → {markdown_text(actual)}",
        "",
        f"**Equivalent:** {_yes_no(diff.equivalent)} · "
        f"**Comparable:** {_yes_no(diff.comparable)} · "
        f"**Interactions:** {diff.expected_interactions} → {diff.actual_interactions}",
        "",
        f"**Drift:** {markdown_text(counts_line(drift))}",
    ]
    if diff.policy_changes:
        lines.append("")
        lines.append(
            "**Policy changes:** " + ", ".join(markdown_text(f) for f in diff.policy_changes)
        )
    if diff.issues:
        lines.append("")
        lines.append("**Comparison issues:** " + ", ".join(markdown_text(i) for i in diff.issues))
    changed = drift.changed
    lines.append("")
    if not changed:
        lines.append("No call changed.")
        return "\n".join(lines)
    lines.append("| Change | Call | Label | What differs |")
    lines.append("|---|---|---|---|")
    for entry in changed:
        label = entry.label
        cells = (
            KIND_TITLES[entry.kind],
            markdown_text(entry_keys(entry)),
            "" if label is None else markdown_text(label),
            "; ".join(markdown_text(detail) for detail in entry_details(entry)),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
