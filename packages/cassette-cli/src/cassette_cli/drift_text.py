"""`cassette diff --drift`: the drift report as terminal lines after the reference's (issue 25)."""

from __future__ import annotations

from cassette_topology.drift import DriftReport

from cassette_cli.display import display
from cassette_cli.drift_terms import KIND_TITLES, counts_line, entry_details, entry_keys

__all__ = ["drift_lines"]


def drift_lines(report: DriftReport) -> list[str]:
    """`Drift: <counts>`, then one line per changed identity: kind, key(s), what differs."""
    lines = [f"Drift: {counts_line(report)}"]
    for entry in report.changed:
        details = "; ".join(entry_details(entry))
        line = f"  {KIND_TITLES[entry.kind]}  {display(entry_keys(entry))}"
        lines.append(f"{line}  {display(details)}" if details else line)
    return lines
