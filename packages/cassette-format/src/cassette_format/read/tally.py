"""The summary counters of FMT-21, updated once per verified interaction."""

from __future__ import annotations

from typing import Any

from cassette_format.records.declare import fixed, wires
from cassette_format.records.model import (
    OUTCOME_KIND,
    RESULT_STOP_REASON,
    STOP_ABORTED,
    STOP_COMPLETED,
    InteractionBody,
    ResultOutcome,
    Timing,
)

__all__ = ["Tally"]

_INTERACTION = wires(InteractionBody)
_TIMING, _OUTCOME = _INTERACTION.timing, _INTERACTION.outcome
_DURATION = wires(Timing).duration_ms
_RESULT_KIND = fixed(ResultOutcome).kind
_REDACTIONS, _RESULT = wires(ResultOutcome).redactions, wires(ResultOutcome).result


class Tally:
    """Summary counters of FMT-21, updated per interaction."""

    __slots__ = ("aborted", "completed", "duration_ms", "failed", "interactions", "redacted")

    def __init__(self) -> None:
        self.interactions = 0
        self.completed = 0
        self.failed = 0
        self.aborted = 0
        self.redacted = 0
        self.duration_ms: int | float = 0

    def count(self, record: Any) -> None:
        """Add one interaction `check_interaction` accepted (so its members are as indexed)."""
        self.interactions += 1
        duration = record[_TIMING][_DURATION]
        self.duration_ms = max(self.duration_ms, duration)
        outcome = record[_OUTCOME]
        if outcome[OUTCOME_KIND] != _RESULT_KIND:
            self.failed += 1
            return
        if outcome[_REDACTIONS] > 0:
            self.redacted += 1
        stop = outcome[_RESULT][RESULT_STOP_REASON]
        if stop == STOP_COMPLETED:
            self.completed += 1
        elif stop == STOP_ABORTED:
            self.aborted += 1
        else:
            self.failed += 1
