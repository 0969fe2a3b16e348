"""Compare two verified cassettes by stable call identity, never showing bodies (DIFF-*)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from cassette_canonical import canonical_json, fingerprint, utf16_sort_key
from cassette_format import CassetteFile, ambiguous_groups, classify_stop_reason
from cassette_format.records import CassetteInteraction, ResultOutcome

PolicyField = Literal[
    "provider.cassette",
    "provider.upstream",
    "provider.capabilities",
    "provider.inheritsParentContext",
    "requestStorage",
    "redactSecrets",
    "redactionPatterns",
]
ComparisonIssue = Literal[
    "expected-ambiguous-duplicate-groups",
    "actual-ambiguous-duplicate-groups",
    "parent-context-semantics-changed",
]
BoundaryField = Literal["published", "local"]

#: DIFF-2: compared header fields, in reporting order, as paths into the on-disk header.
_POLICY_PATHS: Final[tuple[tuple[PolicyField, tuple[str, ...]], ...]] = (
    ("provider.cassette", ("provider", "cassette")),
    ("provider.upstream", ("provider", "upstream")),
    ("provider.capabilities", ("provider", "capabilities")),
    ("provider.inheritsParentContext", ("provider", "inheritsParentContext")),
    ("requestStorage", ("requestStorage",)),
    ("redactSecrets", ("redactSecrets",)),
    ("redactionPatterns", ("redactionPatterns",)),
)
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


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _canonical_text(value: object) -> str | None:
    return canonical_json(value).value_or(None)


@dataclass(frozen=True, slots=True)
class CallIdentity:
    """DIFF-1: what makes two recorded calls the same call across cassettes."""

    parent_key: str
    parent_context_fingerprint: str
    request_fingerprint: str
    occurrence: int

    def sort_key(self) -> tuple[bytes, bytes, bytes, int]:
        """Strings by UTF-16 code units (as JS compares them), then occurrence numerically."""
        return (
            utf16_sort_key(self.parent_key),
            utf16_sort_key(self.parent_context_fingerprint),
            utf16_sort_key(self.request_fingerprint),
            self.occurrence,
        )

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order."""
        return {
            "parentKey": self.parent_key,
            "parentContextFingerprint": self.parent_context_fingerprint,
            "requestFingerprint": self.request_fingerprint,
            "occurrence": self.occurrence,
        }


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
        document = self.identity.as_document()
        document["callKey"] = self.call_key
        document["outcomeKind"] = self.outcome_kind
        if self.stop_reason is not None:
            document["stopReason"] = self.stop_reason
        document["outcomeFingerprint"] = self.outcome_fingerprint
        document["published"] = self.published
        document["local"] = self.local
        document["durationMs"] = self.duration_ms
        return document


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
        """Plain data in the reference key order."""
        document = self.identity.as_document()
        document["expectedCallKey"] = self.expected_call_key
        document["actualCallKey"] = self.actual_call_key
        document["expectedStartLatencyMs"] = self.expected_start_latency_ms
        document["actualStartLatencyMs"] = self.actual_start_latency_ms
        document["startLatencyDeltaMs"] = self.start_latency_delta_ms
        document["expectedDurationMs"] = self.expected_duration_ms
        document["actualDurationMs"] = self.actual_duration_ms
        document["deltaMs"] = self.delta_ms
        return document


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


def _summarize(interaction: CassetteInteraction) -> CallSummary:
    outcome = interaction.outcome
    return CallSummary(
        identity=CallIdentity(
            parent_key=interaction.parent_key,
            parent_context_fingerprint=interaction.parent_context_fingerprint,
            request_fingerprint=interaction.request_fingerprint,
            occurrence=interaction.occurrence,
        ),
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


def _policy_changes(
    expected: Mapping[str, object], actual: Mapping[str, object]
) -> tuple[PolicyField, ...]:
    changes: list[PolicyField] = []
    for name, path in _POLICY_PATHS:
        expected_value: object = expected
        actual_value: object = actual
        for step in path:
            expected_value = _mapping(expected_value).get(step)
            actual_value = _mapping(actual_value).get(step)
        if _canonical_text(expected_value) != _canonical_text(actual_value):
            changes.append(name)
    return tuple(changes)


def _sorted_summaries(interactions: tuple[CassetteInteraction, ...]) -> list[CallSummary]:
    return sorted((_summarize(item) for item in interactions), key=lambda s: s.identity.sort_key())


def _boundary_fields(expected: CallSummary, actual: CallSummary) -> tuple[BoundaryField, ...]:
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
    policy = _policy_changes(expected.header.to_json(), actual.header.to_json())
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
        fields = _boundary_fields(old, new)
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
