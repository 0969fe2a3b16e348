"""The closest recorded call to a mismatched live call, and a one-line lead saying what differs.

Pure, metadata-only (DIAG-6): the lead names a call key, its state and which request metadata,
fingerprints or parent differ, so a failure can open with it before the full DIAG-3 document.
The caller escapes the line for display; no prompt text can reach it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from cassette_format.records import RequestMetadata

from cassette_topology.diagnostics import DiagnosticCandidate, MismatchDiagnostic

__all__ = [
    "ClosestCall",
    "closest_call",
    "counterpart",
    "lead_line",
    "metadata_differences",
]

_FINGERPRINT_SHOWN: Final = len("sha256:") + 8
_SAMPLE_SIZE: Final = 3


@dataclass(frozen=True, slots=True)
class ClosestCall:
    """The recorded candidate nearest the live call and what differs from it, in field order."""

    candidate: DiagnosticCandidate
    differences: tuple[str, ...]


def _shown(value: object) -> str:
    """A metadata value as the lead shows it: strings quoted, absent as `none`."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _tool_filter(metadata: RequestMetadata) -> object:
    return None if metadata.tool_filter is None else metadata.tool_filter.to_json()


def metadata_differences(actual: RequestMetadata, recorded: RequestMetadata) -> tuple[str, ...]:
    """`name recorded→actual` for each request metadata field that differs (DIAG-4 names)."""
    fields: tuple[tuple[str, object, object], ...] = (
        ("label", recorded.label, actual.label),
        ("promptBlocks", recorded.prompt_blocks, actual.prompt_blocks),
        ("promptBytes", recorded.prompt_bytes, actual.prompt_bytes),
        ("hasOutputSchema", recorded.has_output_schema, actual.has_output_schema),
        ("hasPersona", recorded.has_persona, actual.has_persona),
        ("maxDepth", recorded.max_depth, actual.max_depth),
        ("childProvider", recorded.child_provider, actual.child_provider),
        ("childModel", recorded.child_model, actual.child_model),
    )
    differences = [
        f"{name} {_shown(before)}→{_shown(after)}"
        for name, before, after in fields
        if before != after
    ]
    if _tool_filter(recorded) != _tool_filter(actual):
        differences.append("toolFilter changed")
    return tuple(differences)


def _short(fingerprint: str) -> str:
    return fingerprint[:_FINGERPRINT_SHOWN] + "…"


def _differences(diagnostic: MismatchDiagnostic, candidate: DiagnosticCandidate) -> list[str]:
    """Everything that separates the live call from one candidate, metadata first."""
    found = list(
        metadata_differences(diagnostic.actual.request_metadata, candidate.request_metadata)
    )
    actual = diagnostic.actual.group
    recorded = candidate.identity.group
    if recorded.request_fingerprint != actual.request_fingerprint and not found:
        found.append("request fingerprint only (same sizes: text, options or order changed)")
    if recorded.parent_context_fingerprint != actual.parent_context_fingerprint:
        found.append(
            f"parent context {_short(recorded.parent_context_fingerprint)}"
            f"→{_short(actual.parent_context_fingerprint)}"
        )
    if recorded.parent_key != actual.parent_key:
        found.append(f'parent "{recorded.parent_key}"→"{actual.parent_key}"')
    return found


def closest_call(diagnostic: MismatchDiagnostic) -> ClosestCall | None:
    """The candidate with the fewest differences, preferring unconsumed ones; ties by sequence."""
    best: tuple[tuple[int, int, int], DiagnosticCandidate, list[str]] | None = None
    for candidate in diagnostic.candidates:
        found = _differences(diagnostic, candidate)
        rank = (0 if candidate.state == "available" else 1, len(found), candidate.sequence)
        if best is None or rank < best[0]:
            best = (rank, candidate, found)
    if best is None:
        return None
    return ClosestCall(best[1], tuple(best[2]))


def counterpart(diagnostic: MismatchDiagnostic) -> DiagnosticCandidate | None:
    """The recorded call this live call changed, paired as the drift report pairs (issue 25).

    A same-request candidate (parent context changed); else an available candidate with the
    same label; else the parent's only recorded call, if still available. None means the
    live call is new: among several recorded siblings, a new label is a new call.
    """
    if diagnostic.reason == "parent-context-changed":
        return diagnostic.candidates[0] if diagnostic.candidates else None
    parent = diagnostic.actual.group.parent_key
    siblings = [c for c in diagnostic.candidates if c.identity.group.parent_key == parent]
    available = [candidate for candidate in siblings if candidate.state == "available"]
    label = diagnostic.actual.request_metadata.label
    same_label = [c for c in available if c.request_metadata.label == label]
    if same_label:
        return same_label[0]
    return available[0] if len(siblings) == 1 and available else None


def _new_call_line(diagnostic: MismatchDiagnostic) -> str:
    """A live call with no counterpart: it was never recorded (drift kind `added`)."""
    actual = diagnostic.actual
    label = actual.request_metadata.label
    named = "no label" if label is None else f"label {_shown(label)}"
    recorded = ", ".join(
        f"{candidate.call_key} ({candidate.state})"
        for candidate in diagnostic.candidates[:_SAMPLE_SIZE]
    )
    return (
        f'added: no recording for this call under parent "{actual.group.parent_key}" '
        f"({named}); it is a new call, not a changed one; recorded there: {recorded or 'none'}"
    )


def lead_line(diagnostic: MismatchDiagnostic) -> str:
    """One line: the reason, the closest recorded call and what differs from it.

    e.g. `request-changed: closest root/beta-5fbf2955ce0b~1 (available), promptBytes 41→73`.
    A call with no counterpart (`counterpart`) is reported as `added`, with no recording.
    """
    reason = diagnostic.reason
    if reason in {"request-changed", "parent-and-request-changed"}:
        paired = counterpart(diagnostic)
        if paired is None:
            return _new_call_line(diagnostic)
        closest: ClosestCall | None = ClosestCall(paired, tuple(_differences(diagnostic, paired)))
    else:
        closest = closest_call(diagnostic)
    if closest is None:
        parent = diagnostic.actual.group.parent_key
        return f'{reason}: no recorded call to compare with (parent "{parent}")'
    candidate = closest.candidate
    head = f"{reason}: closest {candidate.call_key} ({candidate.state})"
    if reason == "group-exhausted":
        return (
            f"{head}, the same call made more often than its "
            f"{len(diagnostic.candidates)} recorded occurrence(s)"
        )
    if not closest.differences:
        return f"{head}, no difference in metadata or fingerprints"
    return f"{head}, {', '.join(closest.differences)}"
