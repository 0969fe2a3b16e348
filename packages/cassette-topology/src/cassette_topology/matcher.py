"""Strict replay matching: one recorded interaction per live call, independent of finish order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from cassette_format import CassetteFile, ambiguous_groups
from cassette_format.records import CassetteInteraction, ResultOutcome
from cassette_format.records.identity import GroupKey
from returns.result import Failure, Result, Success

from cassette_topology.diagnostics import (
    DiagnosticCandidate,
    DiagnosticRequest,
    MatchDiagnostic,
    MismatchDiagnostic,
    build_mismatch,
    mismatch_message,
)
from cassette_topology.errors import (
    CASSETTE_AMBIGUOUS,
    CASSETTE_MISMATCH,
    INVALID_CONFIG,
    TopologyError,
)
from cassette_topology.live import LiveCall
from cassette_topology.metadata import request_metadata, stored_request_metadata
from cassette_topology.subtrees import CallTree
from cassette_topology.tracker import TopologySnapshot, TopologyTracker

DuplicatePolicy = Literal["reject", "sequence"]
_DUPLICATE_POLICIES: Final = ("reject", "sequence")
_UNCONSUMED_SAMPLE: Final = 5


@dataclass(frozen=True, slots=True)
class MatcherState:
    """A frozen copy of what matching changes: topology, group heads, consumed and covered keys."""

    topology: TopologySnapshot
    group_heads: tuple[tuple[GroupKey, int], ...]
    consumed: frozenset[str]
    covered: frozenset[str] = frozenset()


class _Group:
    """One duplicate group's occurrences, in order, and how many have been replayed."""

    __slots__ = ("members", "position")

    def __init__(self, members: tuple[CassetteInteraction, ...]) -> None:
        self.members = members
        self.position = 0

    def head(self) -> CassetteInteraction | None:
        """The next occurrence to replay, if any is left."""
        return self.members[self.position] if self.position < len(self.members) else None


def _has_redacted_result(interaction: CassetteInteraction) -> bool:
    outcome = interaction.outcome
    return isinstance(outcome, ResultOutcome) and outcome.redactions > 0


def _invalid_options(
    duplicate_policy: object, allow_redacted_replay: object, strict_subtrees: object
) -> TopologyError | None:
    if not isinstance(duplicate_policy, str) or duplicate_policy not in _DUPLICATE_POLICIES:
        return TopologyError(INVALID_CONFIG, 'duplicatePolicy must be "reject" or "sequence"')
    if not isinstance(allow_redacted_replay, bool):
        return TopologyError(INVALID_CONFIG, "allowRedactedReplay must be a boolean")
    if not isinstance(strict_subtrees, bool):
        return TopologyError(INVALID_CONFIG, "strictSubtrees must be a boolean")
    return None


class InteractionMatcher:
    """Matches live calls to recorded interactions by parent key + both fingerprints (MATCH-*).

    Build one with `InteractionMatcher.build`. `match` consumes exactly one interaction and
    commits only on success; `diagnose` runs the same analysis and changes nothing. Sibling
    groups are independent, so the order in which live siblings start does not matter.

    Replay delivers a matched call's recorded result without re-running it, so what that
    call made is never asked for again: unless `strict_subtrees`, every interaction recorded
    beneath a consumed call key is *covered* and counts as consumed for `assert_consumed`.
    Covering changes no lookup: a live call under a covered key still needs its exact group.
    """

    __slots__ = (
        "_beneath",
        "_by_sequence",
        "_consumed_count",
        "_covered_count",
        "_groups",
        "_physical",
        "_slots",
        "_strict_subtrees",
        "_tracker",
        "_tree",
    )

    def __init__(
        self, physical: Sequence[CassetteInteraction], *, strict_subtrees: bool = False
    ) -> None:
        """Index interactions as given (file order); use `build` to validate a cassette first."""
        self._physical: tuple[CassetteInteraction, ...] = tuple(physical)
        self._by_sequence = tuple(sorted(self._physical, key=lambda item: item.sequence))
        groups: dict[GroupKey, list[CassetteInteraction]] = {}
        for item in self._by_sequence:
            groups.setdefault(item.group_key, []).append(item)
        # One dict probe per match: the group holds its own replay cursor, and an
        # interaction is consumed exactly when its index is below that cursor.
        self._groups: dict[GroupKey, _Group] = {
            key: _Group(tuple(sorted(members, key=lambda item: item.occurrence)))
            for key, members in groups.items()
        }
        self._slots: dict[str, tuple[_Group, int]] = {
            member.call_key: (group, index)
            for group in self._groups.values()
            for index, member in enumerate(group.members)
        }
        self._consumed_count = 0
        self._tracker = TopologyTracker()
        self._strict_subtrees = strict_subtrees
        self._tree = CallTree.of(self._physical)
        # Keys beneath some consumed call, closed under descent; covered = these minus consumed.
        self._beneath: set[str] = set()
        self._covered_count = 0

    @classmethod
    def build(
        cls,
        cassette: CassetteFile,
        *,
        duplicate_policy: object = "reject",
        allow_redacted_replay: object = False,
        strict_subtrees: object = False,
    ) -> Result[InteractionMatcher, TopologyError]:
        """Validate options, duplicates and redactions, then index the cassette (MATCH-1).

        Args:
            cassette: a verified cassette (`cassette_format.CassetteFile`).
            duplicate_policy: "reject" refuses groups of duplicates with different outcomes;
                "sequence" replays them in occurrence order. Anything else is INVALID_CONFIG.
            allow_redacted_replay: whether a result stored with redactions may be replayed;
                anything but a bool is INVALID_CONFIG.
            strict_subtrees: when True, nothing is covered: every interaction, nested ones
                included, must be consumed by a live call (MATCH-4 as the reference has it);
                anything but a bool is INVALID_CONFIG.
        """
        invalid = _invalid_options(duplicate_policy, allow_redacted_replay, strict_subtrees)
        if invalid is not None:
            return Failure(invalid)
        physical = tuple(cassette.interactions)
        if duplicate_policy == "reject":
            ambiguous = len(ambiguous_groups(cassette))
            if ambiguous > 0:
                return Failure(
                    TopologyError(
                        CASSETTE_AMBIGUOUS,
                        f"cassette has {ambiguous} duplicate request group(s) with different "
                        "outcomes; add stable labels/prompts or set duplicatePolicy to "
                        '"sequence" explicitly',
                    )
                )
        if not allow_redacted_replay:
            redacted = next((item for item in physical if _has_redacted_result(item)), None)
            if redacted is not None:
                return Failure(
                    TopologyError(
                        CASSETTE_MISMATCH,
                        f'interaction "{redacted.call_key}" contains a redacted result; '
                        "set allowRedactedReplay only if substituted output is acceptable",
                    )
                )
        return Success(cls(physical, strict_subtrees=strict_subtrees is True))

    def match(self, call: LiveCall) -> Result[CassetteInteraction, TopologyError]:
        """Consume the next recorded occurrence of this call's exact group (MATCH-2).

        `call` carries the live parent, both fingerprints and the normalized request (build
        it with `cassette_topology.live_call`). On failure nothing changes and a mismatch
        error carries the DIAG-2 diagnostic, so retrying a corrected call is safe. Errors:
        CASSETTE_AMBIGUOUS (second root, foreign subagent parent), CASSETTE_MISMATCH.
        """
        return self._tracker.peek_parent_key(call.parent).bind(
            lambda parent_key: self._consume(parent_key, call)
        )

    def _head(self, key: GroupKey) -> CassetteInteraction | None:
        group = self._groups.get(key)
        return None if group is None else group.head()

    def _consume(
        self, parent_key: str, call: LiveCall
    ) -> Result[CassetteInteraction, TopologyError]:
        # The plain triple (GroupKey): equal to the CallGroup, with no constructor per match.
        group = self._groups.get(
            (parent_key, call.parent_context_fingerprint, call.request_fingerprint)
        )
        head = None if group is None else group.head()
        if group is None or head is None:
            return self._mismatch(parent_key, call).bind(_mismatch_failure)
        # Commit root and the group's cursor; the tracker already resolved this parent.
        self._tracker.remember_parent(call.parent, parent_key)
        group.position += 1
        self._consumed_count += 1
        self._cover_beneath(head.call_key)
        return Success(head)

    def _cover_beneath(self, delivered: str) -> None:
        """Cover the subtree of a call whose recorded result replay now delivers."""
        if delivered in self._beneath:
            self._covered_count -= 1  # it was covered; a live call consumed it after all
            return  # and its subtree is already beneath, as the set is closed under descent
        if self._strict_subtrees or delivered not in self._tree.children:
            return  # the common case, a leaf: no walk at all
        for key in self._tree.beneath(delivered, self._beneath):
            self._beneath.add(key)
            if not self.is_consumed(key):
                self._covered_count += 1

    def diagnose(
        self, call: LiveCall
    ) -> Result[MatchDiagnostic | MismatchDiagnostic, TopologyError]:
        """Explain whether `call` would match, consuming and committing nothing (DIAG-1)."""
        return self._tracker.peek_parent_key(call.parent).bind(
            lambda parent_key: self._diagnose_under(parent_key, call)
        )

    def _diagnose_under(
        self, parent_key: str, call: LiveCall
    ) -> Result[MatchDiagnostic | MismatchDiagnostic, TopologyError]:
        head = self._head(call.group_under(parent_key))
        if head is None:
            return self._mismatch(parent_key, call)
        return self._actual(parent_key, call).map(
            lambda actual: MatchDiagnostic(actual, self._candidate(head))
        )

    def _actual(self, parent_key: str, call: LiveCall) -> Result[DiagnosticRequest, TopologyError]:
        return request_metadata(call.request).map(
            lambda metadata: DiagnosticRequest(call.group_under(parent_key), metadata)
        )

    def _mismatch(
        self, parent_key: str, call: LiveCall
    ) -> Result[MismatchDiagnostic, TopologyError]:
        # Built only after a lookup failed, so the matching hot path never pays for it.
        return self._actual(parent_key, call).map(
            lambda actual: build_mismatch(actual, self._by_sequence, self._candidate)
        )

    def _candidate(self, item: CassetteInteraction) -> DiagnosticCandidate:
        return DiagnosticCandidate(
            sequence=item.sequence,
            call_key=item.call_key,
            identity=item.identity,
            request_metadata=stored_request_metadata(item.request),
            consumed=self.is_consumed(item.call_key),
            covered=self.is_covered(item.call_key),
        )

    def assert_consumed(self) -> Result[None, TopologyError]:
        """Fail when interactions were neither replayed nor covered, naming up to five (MATCH-4).

        Covered interactions (beneath a delivered call) count as consumed unless the matcher
        is strict about subtrees; the message keeps the reference's wording either way.
        """
        remaining = [
            item.call_key
            for item in self._physical
            if not self.is_consumed(item.call_key) and not self.is_covered(item.call_key)
        ]
        if not remaining:
            return Success(None)
        sample = ", ".join(remaining[:_UNCONSUMED_SAMPLE])
        return Failure(
            TopologyError(
                CASSETTE_MISMATCH,
                f"{len(remaining)} cassette interaction(s) were not consumed: {sample}",
            )
        )

    def is_consumed(self, call_key: str) -> bool:
        """Whether the interaction with this call key has been replayed by a live call."""
        slot = self._slots.get(call_key)
        return slot is not None and slot[1] < slot[0].position

    def is_covered(self, call_key: str) -> bool:
        """Whether this interaction lies beneath a delivered call and no live call consumed it."""
        return call_key in self._beneath and not self.is_consumed(call_key)

    def covered(self) -> tuple[CassetteInteraction, ...]:
        """The covered interactions, in physical order."""
        if not self._covered_count:
            return ()
        return tuple(item for item in self._physical if self.is_covered(item.call_key))

    @property
    def consumed_count(self) -> int:
        """How many interactions have been replayed by live calls."""
        return self._consumed_count

    @property
    def covered_count(self) -> int:
        """How many interactions are covered (beneath delivered calls, not replayed)."""
        return self._covered_count

    @property
    def remaining_count(self) -> int:
        """How many interactions are neither replayed nor covered."""
        return len(self._physical) - self._consumed_count - self._covered_count

    def state(self) -> MatcherState:
        """A frozen copy of everything `match` may change."""
        return MatcherState(
            topology=self._tracker.snapshot(),
            group_heads=tuple(sorted((key, group.position) for key, group in self._groups.items())),
            consumed=frozenset(
                member.call_key
                for group in self._groups.values()
                for member in group.members[: group.position]
            ),
            covered=frozenset(key for key in self._beneath if not self.is_consumed(key)),
        )


def _mismatch_failure(
    diagnostic: MismatchDiagnostic,
) -> Result[CassetteInteraction, TopologyError]:
    return Failure(TopologyError(CASSETTE_MISMATCH, mismatch_message(diagnostic), diagnostic))
