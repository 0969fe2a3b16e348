"""The summary counters of FMT-21, updated once per verified interaction."""

from __future__ import annotations

from typing import Any

__all__ = ["Tally"]


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
        duration = record["timing"]["durationMs"]
        self.duration_ms = max(self.duration_ms, duration)
        outcome = record["outcome"]
        if outcome["kind"] != "result":
            self.failed += 1
            return
        if outcome["redactions"] > 0:
            self.redacted += 1
        stop = outcome["result"]["stopReason"]
        if stop == "completed":
            self.completed += 1
        elif stop == "aborted":
            self.aborted += 1
        else:
            self.failed += 1
