"""Words for the drift report (issue 25): the CLI's text, Markdown and HTML and pytest's report.

Every string returned here is raw, except `drift_lines`, which escapes for a terminal
(CLI-8); each other renderer escapes for its own medium.
"""

from __future__ import annotations

from typing import Final

from cassette_canonical.display_text import display

from cassette_topology.drift import DRIFT_KINDS, DriftEntry, DriftKind, DriftReport

__all__ = ["KIND_TITLES", "counts_line", "drift_lines", "entry_details", "entry_keys"]

#: How each drift kind reads in a report.
KIND_TITLES: Final[dict[DriftKind, str]] = {
    "unchanged": "unchanged",
    "added": "added",
    "removed": "removed",
    "request-changed": "request changed",
    "parent-context-changed": "parent context changed",
    "outcome-changed": "outcome changed",
    "boundary-changed": "boundary changed",
}


def counts_line(report: DriftReport) -> str:
    """`1 unchanged, 1 added, ...`: every kind with its count, in DRIFT_KINDS order."""
    counts = report.counts()
    return ", ".join(f"{counts[kind]} {KIND_TITLES[kind]}" for kind in DRIFT_KINDS)


def entry_keys(entry: DriftEntry) -> str:
    """The call key, or `old -> new` when a paired call's key changed."""
    old = entry.expected.call_key if entry.expected is not None else None
    new = entry.actual.call_key if entry.actual is not None else None
    if old is not None and new is not None and old != new:
        return f"{old} -> {new}"
    return new if new is not None else (old or "")


def entry_details(entry: DriftEntry) -> tuple[str, ...]:
    """What differs, as metadata only: members, JSON paths, outcome terms, boundary fields."""
    details: list[str] = list(entry.request_members)
    if entry.request_paths:
        more = f" (and {entry.more_paths} more)" if entry.more_paths else ""
        details.append("paths " + ", ".join(entry.request_paths) + more)
    old, new = entry.expected, entry.actual
    if entry.kind == "request-changed" and entry.context_changed:
        details.append("parent context changed too")
    if (
        old is not None
        and new is not None
        and (entry.kind == "outcome-changed" or entry.outcome_changed)
    ):
        details.append(
            f"outcome {old.term} -> {new.term}"
            if old.term != new.term
            else f"outcome differs, still {new.term}"  # same category, another result
        )
    if entry.boundary_fields:
        details.append("boundary " + ", ".join(entry.boundary_fields))
    if entry.kind in {"added", "removed", "unchanged"}:
        side = new if new is not None else old
        if side is not None:
            details.append(side.term)
    return tuple(details)


def drift_lines(report: DriftReport) -> list[str]:
    """`Drift: <counts>`, then one line per changed identity: kind, key(s), what differs."""
    lines = [f"Drift: {counts_line(report)}"]
    for entry in report.changed:
        details = "; ".join(entry_details(entry))
        line = f"  {KIND_TITLES[entry.kind]}  {display(entry_keys(entry))}"
        lines.append(f"{line}  {display(details)}" if details else line)
    return lines
