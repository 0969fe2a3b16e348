"""What `cassette report` shows, as typed values built from a verified cassette (issue 25).

Metadata only: call keys, labels, timing, outcome kinds, stop-reason categories, redaction
counts and, against an older cassette, the drift kind of each call. Pure: the file is read
by the caller; the call tree is walked iteratively (a worklist, never recursion).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from cassette_format import CassetteFile, classify_stop_reason
from cassette_format.records import CassetteInteraction, FullRequestView, ResultOutcome
from cassette_topology.call_keys import ROOT_KEY
from cassette_topology.drift import DriftEntry, DriftKind, DriftReport
from cassette_topology.metadata import stored_request_metadata

__all__ = ["ReportCall", "ReportView", "removed_entries", "report_view"]

_MS_PER_SECOND: Final = 1000.0


@dataclass(frozen=True, slots=True)
class ReportCall:
    """One recorded call as the report draws it: tree place, timeline span and outcome."""

    sequence: int
    call_key: str
    parent_key: str
    depth: int
    label: str | None
    start_ms: float
    start_known: bool
    start_latency_ms: float
    duration_ms: float
    outcome_kind: str
    stop_category: str | None
    request_redactions: int
    result_redactions: int
    published: bool
    local: bool
    drift: DriftKind | None = None

    @property
    def term(self) -> str:
        """The stop-reason category of a result, else the outcome kind."""
        return self.stop_category if self.stop_category is not None else self.outcome_kind


@dataclass(frozen=True, slots=True)
class ReportView:
    """The whole report: header facts, calls in tree order, totals and the drift entries."""

    cassette_id: str
    created_at: str
    provider: str
    upstream: str
    request_storage: str
    calls: tuple[ReportCall, ...]
    span_ms: float
    outcome_counts: tuple[tuple[str, int], ...]
    stop_counts: tuple[tuple[str, int], ...]
    drift: DriftReport | None = None

    @property
    def redactions(self) -> int:
        """Every redaction counted in stored requests and results."""
        return sum(call.request_redactions + call.result_redactions for call in self.calls)

    @property
    def redacted_results(self) -> int:
        """Results stored with at least one redaction."""
        return sum(1 for call in self.calls if call.result_redactions > 0)


def _epoch_ms(started_at: str) -> float | None:
    """`timing.startedAt` as milliseconds, or None when it is not an ISO date-time."""
    try:
        moment = datetime.fromisoformat(started_at)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    return moment.timestamp() * _MS_PER_SECOND


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _tree_order(
    interactions: Sequence[CassetteInteraction],
) -> list[tuple[int, CassetteInteraction]]:
    """Calls depth-first under their parents, siblings by start then sequence; orphans last."""
    by_key = {item.call_key: item for item in interactions}
    children: dict[str, list[CassetteInteraction]] = {}
    for item in interactions:
        parent = item.parent_key if item.parent_key in by_key else ROOT_KEY
        children.setdefault(parent, []).append(item)
    for siblings in children.values():
        siblings.sort(key=lambda call: (call.timing.started_at, call.sequence))
    ordered: list[tuple[int, CassetteInteraction]] = []
    seen: set[str] = set()
    pending = [(0, item) for item in reversed(children.get(ROOT_KEY, []))]
    while pending:
        depth, item = pending.pop()
        if item.call_key in seen:
            continue
        seen.add(item.call_key)
        ordered.append((depth, item))
        pending.extend((depth + 1, child) for child in reversed(children.get(item.call_key, [])))
    # A hand-made file whose parent keys form a cycle is still shown whole, at the top level.
    ordered.extend((0, item) for item in interactions if item.call_key not in seen)
    return ordered


def _drift_kinds(drift: DriftReport | None) -> dict[str, DriftKind]:
    if drift is None:
        return {}
    return {
        entry.actual.call_key: entry.kind for entry in drift.entries if entry.actual is not None
    }


def _call(
    depth: int, item: CassetteInteraction, origin: float | None, drift: DriftKind | None
) -> ReportCall:
    started = _epoch_ms(item.timing.started_at)
    outcome = item.outcome
    result = outcome if isinstance(outcome, ResultOutcome) else None
    request = item.request
    return ReportCall(
        sequence=item.sequence,
        call_key=item.call_key,
        parent_key=item.parent_key,
        depth=depth,
        label=stored_request_metadata(request).label,
        start_ms=0.0 if started is None or origin is None else started - origin,
        start_known=started is not None,
        start_latency_ms=_number(item.timing.start_latency_ms),
        duration_ms=_number(item.timing.duration_ms),
        outcome_kind=outcome.kind,
        stop_category=None if result is None else classify_stop_reason(result.stop_reason),
        request_redactions=request.redactions if isinstance(request, FullRequestView) else 0,
        result_redactions=0 if result is None else result.redactions,
        published=item.published,
        local=item.local,
        drift=drift,
    )


def report_view(cassette: CassetteFile, drift: DriftReport | None = None) -> ReportView:
    """The report of one verified cassette, with the drift against an older one if given."""
    interactions = cassette.interactions
    starts = [_epoch_ms(item.timing.started_at) for item in interactions]
    known = [start for start in starts if start is not None]
    origin = min(known) if known else None
    kinds = _drift_kinds(drift)
    calls = tuple(
        _call(depth, item, origin, kinds.get(item.call_key))
        for depth, item in _tree_order(interactions)
    )
    span = max((call.start_ms + call.duration_ms for call in calls), default=0.0)
    outcomes = Counter(call.outcome_kind for call in calls)
    stops = Counter(call.stop_category for call in calls if call.stop_category is not None)
    header = cassette.header
    return ReportView(
        cassette_id=header.cassette_id,
        created_at=header.created_at,
        provider=header.provider.cassette,
        upstream=header.provider.upstream,
        request_storage=header.request_storage,
        calls=calls,
        span_ms=span,
        outcome_counts=tuple(sorted(outcomes.items())),
        stop_counts=tuple(sorted(stops.items())),
        drift=drift,
    )


def removed_entries(view: ReportView) -> tuple[DriftEntry, ...]:
    """Calls of the older cassette that are gone: drawn apart, as they are not in the tree."""
    return () if view.drift is None else view.drift.of_kind("removed")
