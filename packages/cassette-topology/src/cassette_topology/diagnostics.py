"""Mismatch diagnostics: which of five reasons applies, and metadata-only candidate views."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeVar

from cassette_canonical import canonical_json
from cassette_format.records import RequestMetadata
from cassette_format.records.identity import CallGroup, CallIdentity

from cassette_topology.recorded_identity import RecordedIdentity

MismatchReason = Literal[
    "group-exhausted",
    "parent-not-found",
    "parent-context-changed",
    "request-changed",
    "parent-and-request-changed",
]

CandidateState = Literal["consumed", "covered", "available"]

_SAMPLE_SIZE: Final = 3


@dataclass(frozen=True, slots=True)
class DiagnosticRequest:
    """The live call's group and metadata (DIAG-3 `actual`)."""

    group: CallGroup
    request_metadata: RequestMetadata

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order."""
        return {**self.group.to_json(), "requestMetadata": self.request_metadata.to_json()}


@dataclass(frozen=True, slots=True)
class DiagnosticCandidate:
    """A recorded interaction as a diagnostic may show it: identity, metadata, consumption.

    `covered` marks an interaction recorded beneath a call whose recorded result replay
    delivered: no live call consumed it, and none was expected to (issue 12).
    """

    sequence: int
    call_key: str
    identity: CallIdentity
    request_metadata: RequestMetadata
    consumed: bool
    covered: bool = False

    @property
    def state(self) -> CandidateState:
        """`consumed` by a live call, `covered` by a delivered ancestor, else `available`."""
        if self.consumed:
            return "consumed"
        return "covered" if self.covered else "available"

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order (DIAG-3); `covered` appears only when true."""
        document: dict[str, object] = {
            "sequence": self.sequence,
            **self.identity.record_json(self.call_key),
            "requestMetadata": self.request_metadata.to_json(),
            "consumed": self.consumed,
        }
        if self.covered and not self.consumed:
            document["covered"] = True
        return document


@dataclass(frozen=True, slots=True)
class MatchDiagnostic:
    """The live call would consume `candidate`, the head of its exact group."""

    actual: DiagnosticRequest
    candidate: DiagnosticCandidate

    @property
    def status(self) -> Literal["match"]:
        """Always `match`."""
        return "match"

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order."""
        return {
            "status": "match",
            "actual": self.actual.as_document(),
            "candidate": self.candidate.as_document(),
        }


@dataclass(frozen=True, slots=True)
class MismatchDiagnostic:
    """Why no recorded interaction matches, with candidates in sequence order (DIAG-3)."""

    reason: MismatchReason
    actual: DiagnosticRequest
    candidates: tuple[DiagnosticCandidate, ...]

    @property
    def status(self) -> Literal["mismatch"]:
        """Always `mismatch`."""
        return "mismatch"

    def as_document(self) -> dict[str, object]:
        """Plain data in the reference key order."""
        return {
            "status": "mismatch",
            "reason": self.reason,
            "actual": self.actual.as_document(),
            "candidates": [candidate.as_document() for candidate in self.candidates],
        }


Diagnostic = MatchDiagnostic | MismatchDiagnostic

T = TypeVar("T", bound=RecordedIdentity)


def decide_reason(actual: CallGroup, by_sequence: Sequence[T]) -> tuple[MismatchReason, list[T]]:
    """DIAG-2: the first matching row wins; returns the reason and its candidates in order.

    `by_sequence` is every recorded interaction in sequence order.
    """
    grouped = [(item, item.identity.group) for item in by_sequence]
    same_parent = [
        (item, group) for item, group in grouped if group.parent_key == actual.parent_key
    ]
    exact = [item for item, group in same_parent if group == actual]
    if exact:
        return "group-exhausted", exact
    if not same_parent:
        return "parent-not-found", list(by_sequence)
    same_request = [
        item
        for item, group in same_parent
        if group.request_fingerprint == actual.request_fingerprint
    ]
    if same_request:
        return "parent-context-changed", same_request
    same_context = [
        item
        for item, group in same_parent
        if group.parent_context_fingerprint == actual.parent_context_fingerprint
    ]
    if same_context:
        return "request-changed", same_context
    return "parent-and-request-changed", [item for item, _ in same_parent]


def build_mismatch(
    actual: DiagnosticRequest,
    by_sequence: Sequence[T],
    candidate_view: Callable[[T], DiagnosticCandidate],
) -> MismatchDiagnostic:
    """Decide the reason for a failed lookup and render its candidates through the allowlist."""
    reason, chosen = decide_reason(actual.group, by_sequence)
    return MismatchDiagnostic(reason, actual, tuple(candidate_view(item) for item in chosen))


def _quoted_label(label: str | None) -> str:
    if label is None:
        return "<unlabelled>"
    return canonical_json(label).value_or(json.dumps(label, ensure_ascii=False))


def mismatch_message(diagnostic: MismatchDiagnostic) -> str:
    """DIAG-5: names the parent, label, fingerprints and at most three candidate call keys.

    Each sampled key says `consumed`, `available` or, beneath a delivered call, `covered`.
    """
    actual = diagnostic.actual.group
    label = _quoted_label(diagnostic.actual.request_metadata.label)
    sample = ", ".join(
        f"{candidate.call_key} ({candidate.state})"
        for candidate in diagnostic.candidates[:_SAMPLE_SIZE]
    )
    if diagnostic.reason == "group-exhausted":
        return (
            f'cassette interaction group for parent "{actual.parent_key}", label {label} '
            f"has exhausted all {len(diagnostic.candidates)} recorded occurrence(s); "
            f"recorded calls: {sample or 'none'}"
        )
    return (
        f'no cassette interaction matches parent "{actual.parent_key}", label {label}, '
        f"parent context {actual.parent_context_fingerprint}, "
        f"request {actual.request_fingerprint}; diagnosis: {diagnostic.reason}; "
        f"candidate calls: {sample or 'none'}"
    )
