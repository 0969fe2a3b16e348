"""Plain-data views of a loaded cassette for `inspect`: the calls list and the tree rows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format import ResultOutcome, classify_stop_reason

from cassette_cli.tree import TreeCall

if TYPE_CHECKING:
    from cassette_format import CassetteFile, CassetteInteraction

__all__ = ["call_documents", "tree_calls"]


def _by_sequence(cassette: CassetteFile) -> list[CassetteInteraction]:
    return sorted(cassette.interactions, key=lambda interaction: interaction.sequence)


def _term(interaction: CassetteInteraction) -> str:
    outcome = interaction.outcome
    if isinstance(outcome, ResultOutcome):
        return classify_stop_reason(outcome.stop_reason)
    return outcome.kind


def call_documents(cassette: CassetteFile) -> list[dict[str, object]]:
    """`inspect --json --show-calls` calls, sorted by sequence; no bodies, no raw stop reasons."""
    calls: list[dict[str, object]] = []
    for interaction in _by_sequence(cassette):
        call: dict[str, object] = {
            "sequence": interaction.sequence,
            "callKey": interaction.call_key,
            "parentContextFingerprint": interaction.parent_context_fingerprint,
            "requestFingerprint": interaction.request_fingerprint,
            "outcome": interaction.outcome.kind,
        }
        if isinstance(interaction.outcome, ResultOutcome):
            call["stopReason"] = _term(interaction)
        call["durationMs"] = interaction.timing.duration_ms
        calls.append(call)
    return calls


def tree_calls(cassette: CassetteFile) -> list[TreeCall]:
    """One tree row per interaction, sorted by sequence."""
    return [
        TreeCall(
            sequence=interaction.sequence,
            call_key=interaction.call_key,
            parent_key=interaction.parent_key,
            term=_term(interaction),
            duration_ms=interaction.timing.duration_ms,
        )
        for interaction in _by_sequence(cassette)
    ]
