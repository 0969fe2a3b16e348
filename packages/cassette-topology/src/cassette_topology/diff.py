"""Compare two verified cassettes by stable call identity, never showing bodies (DIFF-*)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from cassette_canonical import fingerprint
from cassette_format import CassetteFile, ambiguous_groups, classify_stop_reason
from cassette_format.records import CassetteInteraction, ResultOutcome
from cassette_format.records.identity import CallIdentity
from cassette_format.records.policy import PolicyField, policy_changes

ComparisonIssue = Literal[
    "expected-ambiguous-duplicate-groups",
    "actual-ambiguous-duplicate-groups",
    "parent-context-semantics-changed",
]
BoundaryField = Literal["published", "local"]

#: Below this magnitude JavaScript prints an integral double without an exponent.
_PLAIN_INTEGER_LIMIT: Final = 1e21

Number = int | float


def _plain_number(value: object) -> Number:
    """A JSON number as `json.loads` would read the reference's output of it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    if isinstance(value, float) and value.is_integer() and abs(value) < _PLAIN_INTEGER_LIMIT:
        return int(value)
    return value


@dataclass(frozen=True, slots=True)
class CallSummary:
    """DIFF-5: one call's identity and outcome facts; the stop reason only as its category."""

    identity: CallIdentity
    call_key: str
    outcome_kind: str
    stop_reason: str | None
    outcome_fingerprint: str
    published: bool
    local: bool
    duration_ms: Number
    start_latency_ms: Number

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order (no start latency: that is timing's)."""
        stop_reason = {} if self.stop_reason is None else {"stopReason": self.stop_reason}
        return {
            **self.identity.to_json(),
            "callKey": self.call_key,
            "outcomeKind": self.outcome_kind,
            **stop_reason,
            "outcomeFingerprint": self.outcome_fingerprint,
            "published": self.published,
            "local": self.local,
            "durationMs": self.duration_ms,
        }


@dataclass(frozen=True, slots=True)
class ChangedCall:
    """One identity present on both sides whose outcome fingerprints differ."""

    expected: CallSummary
    actual: CallSummary

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order."""
        return {"expected": self.expected.as_document(), "actual": self.actual.as_document()}


@dataclass(frozen=True, slots=True)
class BoundaryChangedCall:
    """One identity whose publication boundary flags differ (`published` before `local`)."""

    expected: CallSummary
    actual: CallSummary
    fields: tuple[BoundaryField, ...]

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order."""
        return {
            "expected": self.expected.as_document(),
            "actual": self.actual.as_document(),
            "fields": list(self.fields),
        }


@dataclass(frozen=True, slots=True)
class TimingDelta:
    """DIFF-6: informational timing of one aligned call; deltas are actual - expected."""

    identity: CallIdentity
    expected_call_key: str
    actual_call_key: str
    expected_start_latency_ms: Number
    actual_start_latency_ms: Number
    expected_duration_ms: Number
    actual_duration_ms: Number

    @property
    def start_latency_delta_ms(self) -> Number:
        """Actual minus expected start latency, in double arithmetic."""
        return _plain_number(
            float(self.actual_start_latency_ms) - float(self.expected_start_latency_ms)
        )

    @property
    def delta_ms(self) -> Number:
        """Actual minus expected duration, in double arithmetic."""
        return _plain_number(float(self.actual_duration_ms) - float(self.expected_duration_ms))

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order: call keys, start latency, then duration."""
        return {
            **self.identity.to_json(),
            "expectedCallKey": self.expected_call_key,
            "actualCallKey": self.actual_call_key,
            "expectedStartLatencyMs": self.expected_start_latency_ms,
            "actualStartLatencyMs": self.actual_start_latency_ms,
            "startLatencyDeltaMs": self.start_latency_delta_ms,
            "expectedDurationMs": self.expected_duration_ms,
            "actualDurationMs": self.actual_duration_ms,
            "deltaMs": self.delta_ms,
        }


@dataclass(frozen=True, slots=True)
class CassetteDiff:
    """The comparison of an expected and an actual cassette (DIFF-7)."""

    expected_interactions: int
    actual_interactions: int
    policy_changes: tuple[PolicyField, ...]
    issues: tuple[ComparisonIssue, ...]
    expected_ambiguous_groups: int
    actual_ambiguous_groups: int
    added: tuple[CallSummary, ...]
    removed: tuple[CallSummary, ...]
    outcome_changed: tuple[ChangedCall, ...]
    boundary_changed: tuple[BoundaryChangedCall, ...]
    timing: tuple[TimingDelta, ...]

    @property
    def comparable(self) -> bool:
        """No comparison issues (DIFF-3)."""
        return not self.issues

    @property
    def equivalent(self) -> bool:
        """Comparable, same policy, and no added, removed or changed calls (DIFF-7)."""
        return (
            self.comparable
            and not self.policy_changes
            and not self.added
            and not self.removed
            and not self.outcome_changed
            and not self.boundary_changed
        )

    def as_document(self) -> dict[str, object]:
        """The reference's `diff --json` document as plain data, key order included."""
        return {
            "schemaVersion": 1,
            "comparable": self.comparable,
            "equivalent": self.equivalent,
            "expectedInteractions": self.expected_interactions,
            "actualInteractions": self.actual_interactions,
            "policyChanges": list(self.policy_changes),
            "issues": list(self.issues),
            "expectedAmbiguousGroups": self.expected_ambiguous_groups,
            "actualAmbiguousGroups": self.actual_ambiguous_groups,
            "added": [call.as_document() for call in self.added],
            "removed": [call.as_document() for call in self.removed],
            "outcomeChanged": [change.as_document() for change in self.outcome_changed],
            "boundaryChanged": [change.as_document() for change in self.boundary_changed],
            "timing": [entry.as_document() for entry in self.timing],
        }


def call_summary(interaction: CassetteInteraction) -> CallSummary:
    """DIFF-5 facts of one interaction: identity, outcome kind, stop category, fingerprint."""
    outcome = interaction.outcome
    return CallSummary(
        identity=interaction.identity,
        call_key=interaction.call_key,
        outcome_kind=outcome.kind,
        stop_reason=(
            classify_stop_reason(outcome.stop_reason)
            if isinstance(outcome, ResultOutcome)
            else None
        ),
        # A verified cassette's records were all canonicalized when their hashes were
        # checked, so every outcome has a fingerprint; "" only keeps this function total.
        outcome_fingerprint=fingerprint(outcome.to_json()).value_or(""),
        published=interaction.published,
        local=interaction.local,
        duration_ms=_plain_number(interaction.timing.duration_ms),
        start_latency_ms=_plain_number(interaction.timing.start_latency_ms),
    )


def _sorted_summaries(interactions: tuple[CassetteInteraction, ...]) -> list[CallSummary]:
    return sorted(
        (call_summary(item) for item in interactions), key=lambda s: s.identity.sort_key()
    )


def boundary_fields(expected: CallSummary, actual: CallSummary) -> tuple[BoundaryField, ...]:
    """The publication flags that differ, `published` before `local` (DIFF-4)."""
    fields: list[BoundaryField] = []
    if expected.published != actual.published:
        fields.append("published")
    if expected.local != actual.local:
        fields.append("local")
    return tuple(fields)


def diff_cassettes(expected: CassetteFile, actual: CassetteFile) -> CassetteDiff:
    """Align two verified cassettes by call identity and report every material difference."""
    expected_records = expected.interactions
    actual_records = actual.interactions
    expected_ambiguous = len(ambiguous_groups(expected))
    actual_ambiguous = len(ambiguous_groups(actual))
    policy = policy_changes(expected.header, actual.header)
    issues: list[ComparisonIssue] = []
    if expected_ambiguous > 0:
        issues.append("expected-ambiguous-duplicate-groups")
    if actual_ambiguous > 0:
        issues.append("actual-ambiguous-duplicate-groups")
    if "provider.inheritsParentContext" in policy:
        issues.append("parent-context-semantics-changed")

    actual_by_identity = {
        summary.identity: summary for summary in _sorted_summaries(actual_records)
    }
    removed: list[CallSummary] = []
    outcome_changed: list[ChangedCall] = []
    boundary_changed: list[BoundaryChangedCall] = []
    timing: list[TimingDelta] = []
    for old in _sorted_summaries(expected_records):
        new = actual_by_identity.pop(old.identity, None)
        if new is None:
            removed.append(old)
            continue
        if old.outcome_fingerprint != new.outcome_fingerprint:
            outcome_changed.append(ChangedCall(old, new))
        fields = boundary_fields(old, new)
        if fields:
            boundary_changed.append(BoundaryChangedCall(old, new, fields))
        timing.append(
            TimingDelta(
                identity=old.identity,
                expected_call_key=old.call_key,
                actual_call_key=new.call_key,
                expected_start_latency_ms=old.start_latency_ms,
                actual_start_latency_ms=new.start_latency_ms,
                expected_duration_ms=old.duration_ms,
                actual_duration_ms=new.duration_ms,
            )
        )
    return CassetteDiff(
        expected_interactions=len(expected_records),
        actual_interactions=len(actual_records),
        policy_changes=policy,
        issues=tuple(issues),
        expected_ambiguous_groups=expected_ambiguous,
        actual_ambiguous_groups=actual_ambiguous,
        added=tuple(actual_by_identity.values()),
        removed=tuple(removed),
        outcome_changed=tuple(outcome_changed),
        boundary_changed=tuple(boundary_changed),
        timing=tuple(timing),
    )
