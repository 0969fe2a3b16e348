"""The bodies of a refreshed cassette: what was used stays, what was new is added (issue 25).

A `refresh` run replays what the cassette matches and records the rest. Its new cassette keeps
the old header and every old interaction a live call used (replayed it, or was covered beneath
a replayed call), in the old physical order, followed by the newly recorded interactions in
theirs. Interactions nothing used are dropped. "Keeping their bytes" means: a kept interaction's
body (every member but the chain fields `previousHash` and `hash`) is written unchanged, and so
the kept lines before the first dropped one are byte-identical, chain fields included. The one
exception is FMT-17: sequences must read 1..N, so a kept interaction whose sequence is above the
new count moves down into a gap (`RefreshPlan.moved` names it). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass, replace

from cassette_format.records import CassetteInteraction, InteractionBody

__all__ = ["RefreshPlan", "plan_refresh"]


@dataclass(frozen=True, slots=True)
class RefreshPlan:
    """The bodies to write, in order, and which call keys were kept, dropped, recorded, moved."""

    bodies: tuple[InteractionBody, ...]
    kept: tuple[str, ...]
    dropped: tuple[str, ...]
    recorded: tuple[str, ...]
    moved: tuple[str, ...]

    @property
    def unchanged(self) -> bool:
        """Nothing dropped, recorded or moved: the new file would equal the old one."""
        return not (self.dropped or self.recorded or self.moved)


def plan_refresh(
    old: Sequence[CassetteInteraction],
    used: Set[str],
    recorded: Sequence[CassetteInteraction],
) -> RefreshPlan:
    """Kept old interactions (physical order), then recorded ones, numbered 1..N (FMT-17).

    `old` and `recorded` are in physical order; `used` holds the call keys of old
    interactions a live call replayed or covered. A kept sequence within 1..N stays; the
    free numbers go, in order, to kept interactions that had to move (by old sequence),
    then to recorded ones (by the sequence they were recorded with).
    """
    kept = [item for item in old if item.call_key in used]
    dropped = tuple(item.call_key for item in old if item.call_key not in used)
    total = len(kept) + len(recorded)
    staying = {item.sequence for item in kept if item.sequence <= total}
    free = iter(number for number in range(1, total + 1) if number not in staying)
    moving = sorted((item for item in kept if item.sequence > total), key=lambda i: i.sequence)
    numbers: dict[int, int] = {}
    for item in moving:
        numbers[id(item)] = next(free)
    for item in sorted(recorded, key=lambda i: i.sequence):
        numbers[id(item)] = next(free)
    bodies = tuple(
        replace(item.body, sequence=numbers.get(id(item), item.sequence))
        for item in (*kept, *recorded)
    )
    return RefreshPlan(
        bodies=bodies,
        kept=tuple(item.call_key for item in kept),
        dropped=dropped,
        recorded=tuple(item.call_key for item in recorded),
        moved=tuple(item.call_key for item in moving),
    )
