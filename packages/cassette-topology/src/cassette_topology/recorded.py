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

    Issue 24 (build linear in the cassette): past cache size a table of 100,000 string keys
    reads cold strings each time it probes or grows, so the pass indexes only what lookups
    cannot do without, under int keys where it can. A group is found by the hash of its
    request fingerprint, confirmed against its first member's whole key; only a group whose
    hash an earlier group already holds is kept under its whole key (`_others`). Every call
    key is indexed on the first `find_call`; those that parent keys name, which the
    matcher's subtree walk needs at once, are indexed in the pass.
    """

    __slots__ = (
        "_ambiguous",
        "_by_call",
        "_by_request",
        "_first_redacted",
        "_heads",
        "_items",
        "_keys",
        "_next",
        "_others",
        "_parent_positions",
        "_parents",
        "_repeats",
    )

    def __init__(self, interactions: Sequence[CassetteInteraction]) -> None:
        items = self._items = tuple(interactions)
        by_request: dict[int, int] = {}
        others: dict[GroupKey, int] = {}
        repeats: dict[int, list[int]] = {}  # by the group's first member in file order
        parents: list[str] = []
        keys: list[str] = []
        first_redacted = -1
        for position, item in enumerate(items):
            parents.append(item.parent_key)
            keys.append(item.call_key)
            first = by_request.setdefault(hash(item.request_fingerprint), position)
            if first != position and items[first].group_key != item.group_key:
                first = others.setdefault(item.group_key, position)
            if first != position:
                repeats.setdefault(first, [first]).append(position)
            if first_redacted < 0 and _redacted(item):
                first_redacted = position
        heads: dict[int, int] = {}
        following: dict[int, int] = {}
        for first, members in repeats.items():
            members.sort(key=lambda at: (items[at].occurrence, items[at].sequence, at))
            heads[first] = members[0]
            following.update(pairwise(members))
        named = set(parents)
        self._parent_positions = {
            key: position for position, key in enumerate(keys) if key in named
        }
        self._by_request, self._others, self._heads = by_request, others, heads
        self._next, self._repeats, self._parents, self._keys = following, repeats, parents, keys
        self._first_redacted = first_redacted
        self._by_call: dict[str, int] | None = None
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
        return self._first_redacted

    @property
    def delivers_copies(self) -> bool:
        """False: every delivery is the loaded interaction itself, shared with its cassette."""
        return False

    def call_key(self, position: int) -> str:
        """The interaction's call key."""
        return self._keys[position]

    def parent_key(self, position: int) -> str:
        """The interaction's parent key."""
        return self._parents[position]

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
        """The (last) interaction with this call key, or -1 (every key indexed on first use)."""
        if self._by_call is None:
            self._by_call = {key: position for position, key in enumerate(self._keys)}
        return self._by_call.get(call_key, -1)

    def find_group(self, group: GroupKey) -> int:
        """The group's first member in occurrence order, or -1."""
        first = self._by_request.get(hash(group[2]), -1)
        if first >= 0 and self._items[first].group_key != group:
            first = self._others.get(group, -1)
        return first if first < 0 else self._heads.get(first, first)

    def next_in_group(self, position: int) -> int:
        """The member after this one, or -1."""
        return self._next.get(position, -1)

    def parent_position(self, position: int) -> int:
        """The interaction named by this one's parent key, or -1."""
        return self._parent_positions.get(self._parents[position], -1)

    def interaction(self, position: int) -> Result[CassetteInteraction, FormatProblem]:
        """The loaded interaction itself."""
        return Success(self._items[position])
