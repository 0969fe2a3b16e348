"""What verify, inspect and diff print, as typed values: built from the typed results (or, for
the reference's own JSON documents, read strictly from them) and rendered by reports.py.

JSON is produced only at output (`json_document` over the documents the packages already
give); the human renderers never read a dict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cassette_cli.documents import (
    Document,
    boolean,
    documents,
    mapping,
    number,
    strings,
    text,
)
from cassette_cli.tree import TreeCall

if TYPE_CHECKING:
    from cassette_topology import CassetteDiff
    from cassette_topology.diff import CallSummary

__all__ = [
    "BoundaryLine",
    "CallTerm",
    "DiffReport",
    "OutcomeLine",
    "SummaryReport",
    "TimingLine",
    "call_rows",
]

Number = int | float


@dataclass(frozen=True, slots=True)
class SummaryReport:
    """The FMT-21 summary facts that `verify` and `inspect` print."""

    cassette_id: str
    file: str | None
    cassette: str
    upstream: str
    interactions: Number
    completed: Number
    failed: Number
    aborted: Number
    ambiguous_groups: Number
    redacted_results: Number

    @classmethod
    def from_document(cls, summary: Document) -> SummaryReport:
        """Read a `verify --json` summary strictly (a missing member raises, never prints 0)."""
        provider = mapping(summary, "provider")
        file = text(summary, "file") if "file" in summary else None
        return cls(
            cassette_id=text(summary, "cassetteId"),
            file=file,
            cassette=text(provider, "cassette"),
            upstream=text(provider, "upstream"),
            interactions=number(summary, "interactions"),
            completed=number(summary, "completed"),
            failed=number(summary, "failed"),
            aborted=number(summary, "aborted"),
            ambiguous_groups=number(summary, "ambiguousGroups"),
            redacted_results=number(summary, "redactedResults"),
        )


def call_rows(calls: tuple[Document, ...] | list[Document]) -> list[TreeCall]:
    """`inspect --json --show-calls` call documents read strictly as the rows they print."""
    return [
        TreeCall(
            sequence=int(number(call, "sequence")),
            call_key=text(call, "callKey"),
            parent_key="",
            term=text(call, "stopReason") if "stopReason" in call else text(call, "outcome"),
            duration_ms=number(call, "durationMs"),
        )
        for call in calls
    ]


@dataclass(frozen=True, slots=True)
class CallTerm:
    """A diff call as `--show-calls` prints it: its key and how it ended."""

    call_key: str
    term: str

    @classmethod
    def of(cls, call: CallSummary) -> CallTerm:
        """The stop-reason category for results, else the outcome kind."""
        stop = call.stop_reason
        term = stop if call.outcome_kind == "result" and stop is not None else call.outcome_kind
        return cls(call.call_key, term)

    @classmethod
    def from_document(cls, call: Document) -> CallTerm:
        """Read a diff call document strictly."""
        kind = text(call, "outcomeKind")
        stop = text(call, "stopReason") if "stopReason" in call else None
        return cls(text(call, "callKey"), stop if kind == "result" and stop is not None else kind)


@dataclass(frozen=True, slots=True)
class OutcomeLine:
    """A call whose outcome changed: its expected key and both terms."""

    before: CallTerm
    after: CallTerm


@dataclass(frozen=True, slots=True)
class BoundaryLine:
    """A call whose publication boundary changed: its expected key and the fields."""

    call_key: str
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TimingLine:
    """An aligned call whose timing changed (informational, DIFF-6)."""

    expected_call_key: str
    start_latency_delta_ms: Number
    delta_ms: Number


@dataclass(frozen=True, slots=True)
class DiffReport:
    """What `diff` prints of a CassetteDiff (DIFF-7, CLI-7)."""

    comparable: bool
    equivalent: bool
    expected_interactions: Number
    actual_interactions: Number
    added: tuple[CallTerm, ...]
    removed: tuple[CallTerm, ...]
    outcome_changed: tuple[OutcomeLine, ...]
    boundary_changed: tuple[BoundaryLine, ...]
    policy_changes: tuple[str, ...]
    issues: tuple[str, ...]
    timing_changed: tuple[TimingLine, ...]

    @classmethod
    def of(cls, diff: CassetteDiff) -> DiffReport:
        """The typed comparison's printed facts; no document in between."""
        timing = (
            TimingLine(entry.expected_call_key, entry.start_latency_delta_ms, entry.delta_ms)
            for entry in diff.timing
        )
        return cls(
            comparable=diff.comparable,
            equivalent=diff.equivalent,
            expected_interactions=diff.expected_interactions,
            actual_interactions=diff.actual_interactions,
            added=tuple(CallTerm.of(call) for call in diff.added),
            removed=tuple(CallTerm.of(call) for call in diff.removed),
            outcome_changed=tuple(
                OutcomeLine(CallTerm.of(change.expected), CallTerm.of(change.actual))
                for change in diff.outcome_changed
            ),
            boundary_changed=tuple(
                BoundaryLine(change.expected.call_key, tuple(change.fields))
                for change in diff.boundary_changed
            ),
            policy_changes=tuple(diff.policy_changes),
            issues=tuple(diff.issues),
            timing_changed=tuple(line for line in timing if _changed(line)),
        )

    @classmethod
    def from_document(cls, diff: Document) -> DiffReport:
        """Read a `diff --json` document strictly (the reference's own output, in tests)."""
        timing = (
            TimingLine(
                text(entry, "expectedCallKey"),
                number(entry, "startLatencyDeltaMs"),
                number(entry, "deltaMs"),
            )
            for entry in documents(diff, "timing")
        )
        return cls(
            comparable=boolean(diff, "comparable"),
            equivalent=boolean(diff, "equivalent"),
            expected_interactions=number(diff, "expectedInteractions"),
            actual_interactions=number(diff, "actualInteractions"),
            added=tuple(CallTerm.from_document(call) for call in documents(diff, "added")),
            removed=tuple(CallTerm.from_document(call) for call in documents(diff, "removed")),
            outcome_changed=tuple(
                OutcomeLine(
                    CallTerm.from_document(mapping(change, "expected")),
                    CallTerm.from_document(mapping(change, "actual")),
                )
                for change in documents(diff, "outcomeChanged")
            ),
            boundary_changed=tuple(
                BoundaryLine(
                    text(mapping(change, "expected"), "callKey"), strings(change, "fields")
                )
                for change in documents(diff, "boundaryChanged")
            ),
            policy_changes=strings(diff, "policyChanges"),
            issues=strings(diff, "issues"),
            timing_changed=tuple(line for line in timing if _changed(line)),
        )


def _changed(line: TimingLine) -> bool:
    return line.start_latency_delta_ms != 0 or line.delta_ms != 0
