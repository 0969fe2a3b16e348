"""The recorded calls a matcher indexes, by position in file order, whole or read lazily.

`RecordedCalls` is what `InteractionMatcher` asks of a cassette: identity facts per
position, lookups by call key and by exact group (members in occurrence order), the
FMT-19 and MATCH-1 verdicts, and each interaction decoded only when it is delivered.
cassette-format's lazy reader (`cassette_format.replay_index.ReplayIndex`) is one;
`MemoryCalls` is the other, over interactions already loaded (`CassetteFile`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Protocol

from cassette_format.read.outcome_text import outcome_canonical_text
from cassette_format.records import CassetteInteraction, ResultOutcome
from returns.result import Result, Success

from cassette_topology.metadata import stored_request_metadata

if TYPE_CHECKING:
    from cassette_format.problem import FormatProblem
    from cassette_format.records.identity import GroupKey

__all__ = ["CoveredInteraction", "MemoryCalls", "RecordedCalls"]


class RecordedCalls(Protocol):
    """Recorded interactions by position (file order); lookups answer -1 for nothing."""

    def __len__(self) -> int: ...

    @property
    def ambiguous_groups(self) -> int:
        """How many repeated groups hold more than one distinct outcome (FMT-19)."""
        ...

    @property
    def first_redacted(self) -> int:
        """The first interaction whose result was stored with redactions (MATCH-1)."""
        ...

    @property
    def delivers_copies(self) -> bool:
        """Whether each `interaction` call decodes a new record nobody else holds.

        Replay then hands a delivered result to its caller as it is, with no copy.
        """
        ...

    def call_key(self, position: int) -> str:
        """The interaction's call key."""
        ...

    def parent_key(self, position: int) -> str:
        """The interaction's parent key."""
        ...

    def group(self, position: int) -> GroupKey:
        """The interaction's parent-context/request group."""
        ...

    def sequence(self, position: int) -> int:
        """The interaction's sequence."""
        ...

    def occurrence(self, position: int) -> int:
        """The interaction's occurrence within its group."""
        ...

    def label(self, position: int) -> str | None:
        """The stored request's label."""
        ...

    def find_call(self, call_key: str) -> int:
        """The interaction with this call key."""
        ...

    def find_group(self, group: GroupKey) -> int:
        """The first member of the exact group, in occurrence order."""
        ...

    def next_in_group(self, position: int) -> int:
        """The member after this one in its group."""
        ...

    def parent_position(self, position: int) -> int:
        """The interaction whose call key is this one's parent key."""
        ...

    def interaction(self, position: int) -> Result[CassetteInteraction, FormatProblem]:
        """The whole interaction, read and decoded now (a lazy reader re-verifies its line)."""
        ...


@dataclass(frozen=True, slots=True)
class CoveredInteraction:
    """A covered interaction as tallies show it: keys, label and sequence, never its bodies."""

    sequence: int
    call_key: str
    parent_key: str
    label: str | None


def _redacted(item: CassetteInteraction) -> bool:
    outcome = item.outcome
    return isinstance(outcome, ResultOutcome) and outcome.redactions > 0


def _outcome_text(item: CassetteInteraction) -> str:
    return outcome_canonical_text(item.outcome.to_json(), item.hash)


class MemoryCalls:
    """`RecordedCalls` over loaded interactions (any, checked or not), built in one pass.

    A group's members are ordered by occurrence, then sequence, then file position; a
    call key given twice names its last interaction in file order.
    """

    __slots__ = ("_ambiguous", "_calls", "_heads", "_items", "_next", "_repeats")

    def __init__(self, interactions: Sequence[CassetteInteraction]) -> None:
        items = self._items = tuple(interactions)
        calls: dict[str, int] = {}
        heads: dict[GroupKey, int] = {}
        repeats: dict[GroupKey, list[int]] = {}
        for position, item in enumerate(items):
            calls[item.call_key] = position
            key = item.group_key
            first = heads.setdefault(key, position)
            if first != position:
                repeats.setdefault(key, [first]).append(position)
        following: dict[int, int] = {}
        for key, members in repeats.items():
            members.sort(key=lambda at: (items[at].occurrence, items[at].sequence, at))
            heads[key] = members[0]
            following.update(pairwise(members))
        self._calls, self._heads, self._next, self._repeats = calls, heads, following, repeats
        self._ambiguous: int | None = None

    def __len__(self) -> int:
        return len(self._items)

    @property
    def ambiguous_groups(self) -> int:
        """FMT-19 over the repeated groups only (computed once, on first use)."""
        if self._ambiguous is None:
            items = self._items
            self._ambiguous = sum(
                1
                for members in self._repeats.values()
                if len({_outcome_text(items[at]) for at in members}) > 1
            )
        return self._ambiguous

    @property
    def first_redacted(self) -> int:
        """The first interaction in file order with a redacted result, or -1."""
        return next((at for at, item in enumerate(self._items) if _redacted(item)), -1)

    @property
    def delivers_copies(self) -> bool:
        """False: every delivery is the loaded interaction itself, shared with its cassette."""
        return False

    def call_key(self, position: int) -> str:
        """The interaction's call key."""
        return self._items[position].call_key

    def parent_key(self, position: int) -> str:
        """The interaction's parent key."""
        return self._items[position].parent_key

    def group(self, position: int) -> GroupKey:
        """The interaction's group."""
        return self._items[position].group_key

    def sequence(self, position: int) -> int:
        """The interaction's sequence."""
        return self._items[position].sequence

    def occurrence(self, position: int) -> int:
        """The interaction's occurrence."""
        return self._items[position].occurrence

    def label(self, position: int) -> str | None:
        """The stored request's label (DIAG-4's view)."""
        return stored_request_metadata(self._items[position].request).label

    def find_call(self, call_key: str) -> int:
        """The (last) interaction with this call key, or -1."""
        return self._calls.get(call_key, -1)

    def find_group(self, group: GroupKey) -> int:
        """The group's first member, or -1."""
        return self._heads.get(group, -1)

    def next_in_group(self, position: int) -> int:
        """The member after this one, or -1."""
        return self._next.get(position, -1)

    def parent_position(self, position: int) -> int:
        """The interaction named by this one's parent key, or -1."""
        return self._calls.get(self._items[position].parent_key, -1)

    def interaction(self, position: int) -> Result[CassetteInteraction, FormatProblem]:
        """The loaded interaction itself."""
        return Success(self._items[position])
