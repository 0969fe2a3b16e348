"""The one-line lead of a mismatch: closest recorded call and what differs (issue 14, DIAG-6)."""

from __future__ import annotations

from cassette_format.records import RequestMetadata
from cassette_format.records.identity import CallGroup, CallIdentity
from cassette_topology.closest import closest_call, lead_line, metadata_differences
from cassette_topology.diagnostics import (
    DiagnosticCandidate,
    DiagnosticRequest,
    MismatchDiagnostic,
    MismatchReason,
)

CONTEXT = "sha256:" + "a" * 64
OTHER_CONTEXT = "sha256:" + "b" * 64


def meta(label: str, prompt_bytes: int, blocks: int = 1) -> RequestMetadata:
    return RequestMetadata(
        prompt_blocks=blocks,
        prompt_bytes=prompt_bytes,
        has_output_schema=False,
        has_persona=False,
        label=label,
    )


def candidate(
    sequence: int,
    label: str,
    prompt_bytes: int,
    *,
    consumed: bool = False,
    context: str = CONTEXT,
    request: str = "sha256:" + "1" * 64,
) -> DiagnosticCandidate:
    return DiagnosticCandidate(
        sequence=sequence,
        call_key=f"root/{label}-0123456789ab~1",
        identity=CallIdentity(CallGroup("root", context, request), 1),
        request_metadata=meta(label, prompt_bytes),
        consumed=consumed,
    )


def diagnostic(
    reason: MismatchReason,
    *candidates: DiagnosticCandidate,
    label: str = "beta",
    prompt_bytes: int = 73,
) -> MismatchDiagnostic:
    actual = DiagnosticRequest(
        CallGroup("root", CONTEXT, "sha256:" + "9" * 64), meta(label, prompt_bytes)
    )
    return MismatchDiagnostic(reason, actual, candidates)


def test_request_changed_names_the_closest_call_and_the_size_change() -> None:
    found = diagnostic(
        "request-changed",
        candidate(1, "alpha", 41),
        candidate(2, "beta", 41),
        candidate(3, "gamma", 50),
    )
    assert lead_line(found) == (
        "request-changed: closest root/beta-0123456789ab~1 (available), promptBytes 41→73"
    )


def test_an_available_candidate_wins_over_a_consumed_one_with_fewer_differences() -> None:
    found = diagnostic(
        "request-changed", candidate(1, "beta", 41, consumed=True), candidate(2, "alpha", 41)
    )
    closest = closest_call(found)
    assert closest is not None
    assert closest.candidate.sequence == 2
    assert closest.differences == ('label "alpha"→"beta"', "promptBytes 41→73")


def test_same_sizes_say_only_the_fingerprint_differs_and_context_changes_are_named() -> None:
    same = diagnostic("request-changed", candidate(1, "beta", 73))
    assert lead_line(same).endswith(
        "request fingerprint only (same sizes: text, options or order changed)"
    )
    moved = diagnostic(
        "parent-context-changed",
        candidate(1, "beta", 73, context=OTHER_CONTEXT, request="sha256:" + "9" * 64),
    )
    assert lead_line(moved) == (
        "parent-context-changed: closest root/beta-0123456789ab~1 (available), "
        "parent context sha256:bbbbbbbb…→sha256:aaaaaaaa…"
    )


def test_group_exhausted_and_no_candidates() -> None:
    exhausted = diagnostic(
        "group-exhausted",
        candidate(1, "beta", 73, consumed=True, request="sha256:" + "9" * 64),
    )
    assert lead_line(exhausted) == (
        "group-exhausted: closest root/beta-0123456789ab~1 (consumed), the same call made "
        "more often than its 1 recorded occurrence(s)"
    )
    assert lead_line(diagnostic("parent-not-found")) == (
        'parent-not-found: no recorded call to compare with (parent "root")'
    )


def test_metadata_differences_cover_flags_and_absent_values() -> None:
    recorded = RequestMetadata(1, 10, has_output_schema=False, has_persona=False)
    actual = RequestMetadata(2, 10, has_output_schema=True, has_persona=False, max_depth=2)
    assert metadata_differences(actual, recorded) == (
        "promptBlocks 1→2",
        "hasOutputSchema false→true",
        "maxDepth none→2",
    )
    assert metadata_differences(recorded, recorded) == ()
