"""What the tracker and the diagnostics need of a recorded interaction: its call identity.

A module of its own so `diagnostics` (which `errors` names for a mismatch's analysis) does
not import `call_keys`, which imports `errors`: no circle, not even for type checkers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from cassette_format.records.identity import CallIdentity

__all__ = ["RecordedIdentity"]


class RecordedIdentity(Protocol):
    """What places a recorded interaction in its exact group (DIAG-2, TOPO-3)."""

    @property
    def identity(self) -> CallIdentity: ...
