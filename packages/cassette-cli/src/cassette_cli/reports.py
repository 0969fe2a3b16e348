"""Human reports of verify, inspect and diff, line for line as the reference prints them.

Renderers take the plain-data documents (the summary with `file`, the `calls` list, the
diff document) so they can be checked against the reference's own JSON output.
"""

from __future__ import annotations

from collections.abc import Sequence

from cassette_cli.decimals import one_decimal
from cassette_cli.display import display
from cassette_cli.documents import (
    Document,
    count_text,
    documents,
    js_number,
    mapping,
    number,
    strings,
    text,
)

__all__ = ["call_lines", "diff_lines", "inspect_lines", "terminal_term", "verify_line"]


def verify_line(summary: Document) -> str:
    """`OK: <N> interaction(s), hash chain verified (<id>)` (CLI-5)."""
    return (
        f"OK: {count_text(summary, 'interactions')} interaction(s), hash chain verified "
        f"({display(text(summary, 'cassetteId'))})"
    )


def inspect_lines(summary: Document) -> list[str]:
    """The seven summary lines of `inspect` (CLI-6); `<memory>` when the source is unknown."""
    provider = mapping(summary, "provider")
    file = summary.get("file")
    return [
        f"Cassette: {display(text(summary, 'cassetteId'))}",
        f"File: {display(file if isinstance(file, str) else '<memory>')}",
        f"Provider: {display(text(provider, 'cassette'))} -> {display(text(provider, 'upstream'))}",
        f"Interactions: {count_text(summary, 'interactions')}",
        f"Completed / failed / aborted: {count_text(summary, 'completed')} / "
        f"{count_text(summary, 'failed')} / {count_text(summary, 'aborted')}",
        f"Ambiguous duplicate groups: {count_text(summary, 'ambiguousGroups')}",
        f"Redacted results: {count_text(summary, 'redactedResults')}",
    ]


def call_lines(calls: Sequence[Document]) -> list[str]:
    """`--show-calls` lines: sequence, call key, stop category or outcome kind, duration."""
    lines = []
    for call in calls:
        stop = call.get("stopReason")
        term = stop if isinstance(stop, str) else text(call, "outcome")
        sequence = count_text(call, "sequence").rjust(4)
        duration = one_decimal(number(call, "durationMs"))
        lines.append(f"{sequence}  {display(text(call, 'callKey'))}  {term}  {duration}ms")
    return lines


def terminal_term(call: Document) -> str:
    """A diff call's stop-reason category for results, else its outcome kind."""
    kind = text(call, "outcomeKind")
    stop = call.get("stopReason")
    if kind == "result" and isinstance(stop, str):
        return stop
    return kind


def _signed(value: int | float) -> str:
    return ("+" if value >= 0 else "") + one_decimal(value)


def _changed_timing(diff: Document) -> tuple[Document, ...]:
    return tuple(
        entry
        for entry in documents(diff, "timing")
        if number(entry, "startLatencyDeltaMs") != 0 or number(entry, "deltaMs") != 0
    )


def _yes_no(value: object) -> str:
    return "yes" if value is True else "no"


def diff_lines(diff: Document, expected: str, actual: str, *, show_calls: bool) -> list[str]:
    """The eight summary lines of `diff` and, with show_calls, one line per change (CLI-7)."""
    timing = _changed_timing(diff)
    lines = [
        f"Expected: {display(expected)}",
        f"Actual: {display(actual)}",
        f"Comparable / equivalent: {_yes_no(diff.get('comparable'))} / "
        f"{_yes_no(diff.get('equivalent'))}",
        f"Interactions: {count_text(diff, 'expectedInteractions')} -> "
        f"{count_text(diff, 'actualInteractions')}",
        f"Added / removed / outcome / boundary: {len(documents(diff, 'added'))} / "
        f"{len(documents(diff, 'removed'))} / {len(documents(diff, 'outcomeChanged'))} / "
        f"{len(documents(diff, 'boundaryChanged'))}",
        f"Policy changes: {', '.join(strings(diff, 'policyChanges')) or 'none'}",
        f"Comparison issues: {', '.join(strings(diff, 'issues')) or 'none'}",
        f"Timing changes (informational): {js_number(len(timing))}",
    ]
    if not show_calls:
        return lines
    for call in documents(diff, "added"):
        lines.append(f"+ {display(text(call, 'callKey'))}  {terminal_term(call)}")
    for call in documents(diff, "removed"):
        lines.append(f"- {display(text(call, 'callKey'))}  {terminal_term(call)}")
    for change in documents(diff, "outcomeChanged"):
        before, after = mapping(change, "expected"), mapping(change, "actual")
        lines.append(
            f"~ {display(text(before, 'callKey'))}  outcome {terminal_term(before)} -> "
            f"{terminal_term(after)}"
        )
    for change in documents(diff, "boundaryChanged"):
        before = mapping(change, "expected")
        fields = ", ".join(strings(change, "fields"))
        lines.append(f"~ {display(text(before, 'callKey'))}  boundary {fields}")
    for entry in timing:
        start, duration = number(entry, "startLatencyDeltaMs"), number(entry, "deltaMs")
        lines.append(
            f"= {display(text(entry, 'expectedCallKey'))}  timing start {_signed(start)}ms, "
            f"duration {_signed(duration)}ms"
        )
    return lines
