"""The drift report: what became of every recorded call between two cassettes (issue 25).

Where `diff_cassettes` (DIFF-*) aligns exact identities only, drift pairs a removed and an
added call that are one call changed: under one parent (whose own key may have changed),
the same request in a new parent context is *parent context changed*; a new request with the
same label, or a parent's only child on both sides, is *request changed*, naming the request
members that differ as far as the stored views allow (metadata members, or JSON paths when
both sides stored the full request). A new call with no counterpart is *added*. Pure and
metadata-only (DIAG-6): no prompt, result or error body, and no member value, is kept.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, get_args

from cassette_canonical import utf16_sort_key
from cassette_format.records import (
    CassetteInteraction,
    FullRequestView,
    RequestMetadata,
)
from cassette_format.records.identity import CallIdentity

from cassette_topology.call_keys import ROOT_KEY
from cassette_topology.closest import metadata_differences
from cassette_topology.diff import CallSummary, boundary_fields, call_summary
from cassette_topology.member_paths import MemberPaths, differing_paths
from cassette_topology.metadata import stored_request_metadata

__all__ = [
    "DRIFT_KINDS",
    "DriftCall",
    "DriftEntry",
    "DriftKind",
    "DriftReport",
    "drift_report",
]

DriftKind = Literal[
    "unchanged",
    "added",
    "removed",
    "request-changed",
    "parent-context-changed",
    "outcome-changed",
    "boundary-changed",
]
#: Every kind, in the order reports count and colour them (declared once, by DriftKind).
DRIFT_KINDS: Final[tuple[DriftKind, ...]] = get_args(DriftKind)


@dataclass(frozen=True, slots=True)
class DriftCall:
    """One side of a drift entry: the DIFF-5 call summary, its sequence and request metadata."""

    summary: CallSummary
    sequence: int
    request_metadata: RequestMetadata

    @property
    def call_key(self) -> str:
        """The call's key."""
        return self.summary.call_key

    @property
    def identity(self) -> CallIdentity:
        """The call's stable identity (DIFF-1)."""
        return self.summary.identity

    @property
    def term(self) -> str:
        """The stop-reason category of a result, else the outcome kind (CLI-7's `<term>`)."""
        summary = self.summary
        return summary.stop_reason if summary.stop_reason is not None else summary.outcome_kind

    def as_document(self) -> dict[str, object]:
        """Plain data: sequence, identity, call key, label and metadata, outcome facts."""
        summary = self.summary
        document: dict[str, object] = {
            "sequence": self.sequence,
            **summary.identity.record_json(summary.call_key),
            "requestMetadata": self.request_metadata.to_json(),
            "outcomeKind": summary.outcome_kind,
        }
        if summary.stop_reason is not None:
            document["stopReason"] = summary.stop_reason
        document["outcomeFingerprint"] = summary.outcome_fingerprint
        document["published"] = summary.published
        document["local"] = summary.local
        return document


@dataclass(frozen=True, slots=True)
class DriftEntry:
    """One stable identity's fate: its kind, its old and new side, and what differs.

    `request_members` are metadata differences (`promptBytes 812→845`); `request_paths` the
    JSON paths of differing members when both sides stored the full request (`prompt[0].text`),
    with `more_paths` counting those left out. `outcome_changed` and `context_changed` say
    whether a paired call's outcome or parent context differ too.
    """

    kind: DriftKind
    expected: DriftCall | None
    actual: DriftCall | None
    request_members: tuple[str, ...] = ()
    request_paths: tuple[str, ...] = ()
    more_paths: int = 0
    boundary_fields: tuple[str, ...] = ()
    outcome_changed: bool = False
    context_changed: bool = False

    @property
    def call_key(self) -> str:
        """The new call key when there is one, else the old one."""
        side = self.actual if self.actual is not None else self.expected
        return "" if side is None else side.call_key

    @property
    def label(self) -> str | None:
        """The call's label (new side first), a metadata member."""
        side = self.actual if self.actual is not None else self.expected
        return None if side is None else side.request_metadata.label

    def as_document(self) -> dict[str, object]:
        """Plain data: kind, both sides, then only the differences that apply."""
        document: dict[str, object] = {"kind": self.kind}
        if self.expected is not None:
            document["expected"] = self.expected.as_document()
        if self.actual is not None:
            document["actual"] = self.actual.as_document()
        if self.request_members:
            document["requestMembers"] = list(self.request_members)
        if self.request_paths:
            document["requestPaths"] = list(self.request_paths)
        if self.more_paths:
            document["morePaths"] = self.more_paths
        if self.boundary_fields:
            document["boundaryFields"] = list(self.boundary_fields)
        if self.kind in {"request-changed", "parent-context-changed"}:
            document["outcomeChanged"] = self.outcome_changed
        if self.kind == "request-changed":
            document["contextChanged"] = self.context_changed
        return document


@dataclass(frozen=True, slots=True)
class DriftReport:
    """Every identity of both cassettes, classified, ordered by call key (new key first)."""

    entries: tuple[DriftEntry, ...]

    def counts(self) -> dict[DriftKind, int]:
        """How many entries of each kind, zeros included, in DRIFT_KINDS order."""
        counts: dict[DriftKind, int] = dict.fromkeys(DRIFT_KINDS, 0)
        for entry in self.entries:
            counts[entry.kind] += 1
        return counts

    @property
    def changed(self) -> tuple[DriftEntry, ...]:
        """The entries that are not `unchanged`."""
        return tuple(entry for entry in self.entries if entry.kind != "unchanged")

    def of_kind(self, kind: DriftKind) -> tuple[DriftEntry, ...]:
        """The entries of one kind, in report order."""
        return tuple(entry for entry in self.entries if entry.kind == kind)

    def as_document(self) -> dict[str, object]:
        """Plain data: a schema version, the counts, then every entry."""
        return {
            "schemaVersion": 1,
            "counts": dict(self.counts()),
            "entries": [entry.as_document() for entry in self.entries],
        }


def _drift_call(interaction: CassetteInteraction) -> DriftCall:
    return DriftCall(
        call_summary(interaction),
        interaction.sequence,
        stored_request_metadata(interaction.request),
    )


def _same_identity(old: DriftCall, new: DriftCall) -> DriftEntry:
    """An identity on both sides: unchanged, or its outcome or boundary changed."""
    fields = boundary_fields(old.summary, new.summary)
    if _outcome_differs(old, new):
        return DriftEntry("outcome-changed", old, new, boundary_fields=fields)
    if fields:
        return DriftEntry("boundary-changed", old, new, boundary_fields=fields)
    return DriftEntry("unchanged", old, new)


def _outcome_differs(old: DriftCall, new: DriftCall) -> bool:
    return old.summary.outcome_fingerprint != new.summary.outcome_fingerprint


def _member_paths(old: CassetteInteraction, new: CassetteInteraction) -> MemberPaths:
    if isinstance(old.request, FullRequestView) and isinstance(new.request, FullRequestView):
        return differing_paths(old.request.value.to_json(), new.request.value.to_json())
    return MemberPaths(())


def _paired(kind: DriftKind, old: CassetteInteraction, new: CassetteInteraction) -> DriftEntry:
    """A removed and an added call that are one call changed.

    The same request in the same parent context under a re-keyed parent (its parent's request
    changed) is the same call moved with its parent: unchanged, or its outcome changed.
    """
    before, after = _drift_call(old), _drift_call(new)
    if old.request_fingerprint == new.request_fingerprint and (
        old.parent_context_fingerprint == new.parent_context_fingerprint
    ):
        return _same_identity(before, after)
    paths = _member_paths(old, new) if kind == "request-changed" else MemberPaths(())
    return DriftEntry(
        kind,
        before,
        after,
        request_members=metadata_differences(after.request_metadata, before.request_metadata),
        request_paths=paths.paths,
        more_paths=paths.more,
        boundary_fields=boundary_fields(before.summary, after.summary),
        outcome_changed=_outcome_differs(before, after),
        context_changed=old.parent_context_fingerprint != new.parent_context_fingerprint,
    )


def _label(interaction: CassetteInteraction) -> str | None:
    return stored_request_metadata(interaction.request).label


def _pair_siblings(
    olds: list[CassetteInteraction], news: list[CassetteInteraction], *, only_child: bool
) -> list[tuple[DriftKind, CassetteInteraction, CassetteInteraction]]:
    """Pair one parent's unmatched old and new children (both in sequence order).

    First the same request in another parent context, then the same label; within a rule,
    calls pair in sequence order. Last, a parent's only child on each side (`only_child`)
    pairs whatever its label: among several siblings a new label is a new call. Linear: each
    rule indexes the new side once. Paired calls are removed from both lists.
    """
    pairs: list[tuple[DriftKind, CassetteInteraction, CassetteInteraction]] = []
    taken: set[int] = set()
    rules: tuple[tuple[DriftKind, Callable[[CassetteInteraction], object]], ...] = (
        ("parent-context-changed", lambda call: call.request_fingerprint),
        ("request-changed", _label),
    )
    for kind, key in rules:
        waiting: dict[object, deque[CassetteInteraction]] = {}
        for new in news:
            if id(new) not in taken:
                waiting.setdefault(key(new), deque()).append(new)
        for old in olds:
            if id(old) in taken:
                continue
            queue = waiting.get(key(old))
            if queue:
                new = queue.popleft()
                taken.update((id(old), id(new)))
                pairs.append((kind, old, new))
    left_old = [old for old in olds if id(old) not in taken]
    left_new = [new for new in news if id(new) not in taken]
    if only_child and len(left_old) == 1 and len(left_new) == 1:
        pairs.append(("request-changed", left_old[0], left_new[0]))
        left_old, left_new = [], []
    olds[:] = left_old
    news[:] = left_new
    return pairs


def _by_parent(calls: list[CassetteInteraction]) -> dict[str, list[CassetteInteraction]]:
    grouped: dict[str, list[CassetteInteraction]] = {}
    for item in sorted(calls, key=lambda call: call.sequence):
        grouped.setdefault(item.parent_key, []).append(item)
    return grouped


def drift_report(
    expected: Sequence[CassetteInteraction], actual: Sequence[CassetteInteraction]
) -> DriftReport:
    """Classify every identity of two verified cassettes' interactions (old, then new).

    Exact identities first (DIFF-1); then, parent by parent from the root down, removed and
    added children are paired, a paired call's old key standing for its new key beneath it.
    Iterative: a worklist of parent keys, never recursion over the call tree.
    """
    new_by_identity = {item.identity: item for item in actual}
    entries: list[DriftEntry] = []
    resolved: dict[str, str] = {ROOT_KEY: ROOT_KEY}
    unmatched_old: list[CassetteInteraction] = []
    for old in expected:
        new = new_by_identity.pop(old.identity, None)
        if new is None:
            unmatched_old.append(old)
            continue
        entries.append(_same_identity(_drift_call(old), _drift_call(new)))
        resolved[old.call_key] = new.call_key
    old_counts = Counter(item.parent_key for item in expected)
    new_counts = Counter(item.parent_key for item in actual)
    old_children = _by_parent(unmatched_old)
    new_children = _by_parent(list(new_by_identity.values()))
    worklist = [key for key in old_children if key in resolved]
    visited: set[str] = set()
    while worklist:
        parent = worklist.pop()
        if parent in visited:
            continue
        visited.add(parent)
        olds = old_children.get(parent, [])
        news = new_children.get(resolved[parent], [])
        only_child = old_counts[parent] == 1 and new_counts[resolved[parent]] == 1
        for kind, old, new in _pair_siblings(olds, news, only_child=only_child):
            entries.append(_paired(kind, old, new))
            resolved[old.call_key] = new.call_key
            if old.call_key in old_children:
                worklist.append(old.call_key)
    entries.extend(
        DriftEntry("removed", _drift_call(old), None)
        for calls in old_children.values()
        for old in calls
    )
    entries.extend(
        DriftEntry("added", None, _drift_call(new))
        for calls in new_children.values()
        for new in calls
    )
    entries.sort(key=lambda entry: (utf16_sort_key(entry.call_key), entry.kind))
    return DriftReport(tuple(entries))
