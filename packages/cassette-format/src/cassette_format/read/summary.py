"""Metadata-only summaries of a verified cassette (FMT-19..21): never prompts or results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cassette_format.read.outcome_text import outcome_canonical_text
from cassette_format.read.tally import Tally

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

    from cassette_format.records.cassette_file import CassetteFile
    from cassette_format.records.model import CassetteInteraction, StopReasonCategory

__all__ = ["ambiguous_groups", "classify_stop_reason", "summarize", "summary_document"]

_CATEGORIES: dict[str, StopReasonCategory] = {
    "completed": "completed",
    "aborted": "aborted",
    "error": "error",
    "max-tokens": "max-tokens",
    "refusal": "refusal",
}


def classify_stop_reason(stop_reason: str) -> StopReasonCategory:
    """The bounded, metadata-safe category of an extensible stop reason (FMT-20)."""
    return _CATEGORIES.get(stop_reason, "other")


def group_key(interaction: CassetteInteraction) -> str:
    """The reference's NUL-joined parent-context/request group key."""
    return "\0".join(interaction.group_key)


def ambiguous_groups(cassette: CassetteFile) -> list[str]:
    """Groups (first-seen order) with 2+ members and more than one distinct outcome (FMT-19).

    Outcomes are canonicalized only for groups that actually repeat.
    """
    members: dict[str, list[CassetteInteraction]] = {}
    for interaction in cassette.interactions:
        members.setdefault(group_key(interaction), []).append(interaction)
    ambiguous: list[str] = []
    for key, group in members.items():
        if len(group) < 2:
            continue
        outcomes = {_outcome_text(member) for member in group}
        if len(outcomes) > 1:
            ambiguous.append(key)
    return ambiguous


def _outcome_text(interaction: CassetteInteraction) -> str:
    return outcome_canonical_text(interaction.outcome.to_json(), interaction.hash)


def summary_document(
    header: Mapping[str, Any], tally: Tally, ambiguous: int
) -> dict[str, JsonValue]:
    """The reference `verify --json` document minus `file`, keys in its order (FMT-21).

    `header` is a verified header's JSON (its `to_json()`, or the checked line itself).
    """
    provider = header["provider"]
    caps = provider["capabilities"]
    return {
        "cassetteId": header["cassetteId"],
        "provider": {
            "cassette": provider["cassette"],
            "upstream": provider["upstream"],
            "capabilities": {
                "outputSchema": caps["outputSchema"],
                "depthLimit": caps["depthLimit"],
                "toolFilter": caps["toolFilter"],
                "persona": caps["persona"],
            },
            "inheritsParentContext": provider["inheritsParentContext"],
        },
        "interactions": tally.interactions,
        "completed": tally.completed,
        "failed": tally.failed,
        "aborted": tally.aborted,
        "ambiguousGroups": ambiguous,
        "redactedResults": tally.redacted,
        "durationMs": tally.duration_ms,
    }


def summarize(cassette: CassetteFile) -> dict[str, JsonValue]:
    """The reference `verify --json` summary of a parsed cassette, without `file`."""
    tally = Tally()
    for interaction in cassette.interactions:
        tally.count(interaction.to_json())
    header = cassette.header.to_json()
    return summary_document(header, tally, len(ambiguous_groups(cassette)))
