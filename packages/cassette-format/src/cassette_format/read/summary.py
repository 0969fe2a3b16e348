"""Metadata-only summaries of a verified cassette (FMT-19..21): never prompts or results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, get_args

from cassette_format.read.outcome_text import outcome_canonical_text
from cassette_format.read.tally import Tally
from cassette_format.records.declare import decoder, wires
from cassette_format.records.model import (
    CassetteHeader,
    ProviderFacts,
    StopReasonCategory,
    SummaryDocument,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

    from cassette_format.records.cassette_file import CassetteFile
    from cassette_format.records.model import CassetteInteraction

__all__ = ["ambiguous_groups", "classify_stop_reason", "summarize", "summary_document"]

_OTHER: Final[StopReasonCategory] = "other"
_CASSETTE_ID = wires(CassetteHeader).cassette_id
_PROVIDER = wires(CassetteHeader).provider
_provider = decoder(ProviderFacts)

#: The bounded categories (FMT-20): each recorded reason that names one maps to itself.
_CATEGORIES: dict[str, StopReasonCategory] = {
    category: category for category in get_args(StopReasonCategory) if category != _OTHER
}


def classify_stop_reason(stop_reason: str) -> StopReasonCategory:
    """The bounded, metadata-safe category of an extensible stop reason (FMT-20)."""
    return _CATEGORIES.get(stop_reason, _OTHER)


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

    `header` is a verified header's JSON (its `to_json()`, or the checked line itself, whose
    members may stand in any order: they are written back in the declared one).
    """
    return SummaryDocument(
        cassette_id=header[_CASSETTE_ID],
        provider=_provider(header[_PROVIDER]),
        interactions=tally.interactions,
        completed=tally.completed,
        failed=tally.failed,
        aborted=tally.aborted,
        ambiguous_groups=ambiguous,
        redacted_results=tally.redacted,
        duration_ms=tally.duration_ms,
    ).to_json()


def summarize(cassette: CassetteFile) -> dict[str, JsonValue]:
    """The reference `verify --json` summary of a parsed cassette, without `file`."""
    tally = Tally()
    for interaction in cassette.interactions:
        tally.count(interaction.to_json())
    header = cassette.header.to_json()
    return summary_document(header, tally, len(ambiguous_groups(cassette)))
