"""Strict replay matching: one recorded interaction per live call, independent of finish order."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from cassette_format.problem import CASSETTE_FORMAT_CODE, FormatProblem
from cassette_format.records.cassette_file import CassetteFile
from cassette_format.records.identity import CallGroup, CallIdentity, GroupKey
from cassette_format.records.model import CassetteInteraction
from returns.iterables import Fold
from returns.result import Failure, Result, Success

from cassette_topology.diagnostics import (
    DiagnosticCandidate,
    DiagnosticRequest,
    MatchDiagnostic,
    MismatchDiagnostic,
    decide_reason,
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
from cassette_topology.recorded import CoveredInteraction, MemoryCalls, RecordedCalls
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


def invalid_matcher_options(
    duplicate_policy: object, allow_redacted_replay: object, strict_subtrees: object
) -> TopologyError | None:
    """Why the matcher options are refused (INVALID_CONFIG, GAP-13), or None: the one check."""
    if not isinstance(duplicate_policy, str) or duplicate_policy not in _DUPLICATE_POLICIES:
        return TopologyError(INVALID_CONFIG, 'duplicatePolicy must be "reject" or "sequence"')
    if not isinstance(allow_redacted_replay, bool):
        return TopologyError(INVALID_CONFIG, "allowRedactedReplay must be a boolean")
    if not isinstance(strict_subtrees, bool):
        return TopologyError(INVALID_CONFIG, "strictSubtrees must be a boolean")
    return None


class _Recorded:
    """A recorded call's position and identity, for DIAG-2's decision (mismatches only)."""

    __slots__ = ("identity", "position")

    def __init__(self, position: int, identity: CallIdentity) -> None:
        self.position = position
        self.identity = identity


def _format_failure(problem: FormatProblem) -> TopologyError:
    """A delivered line that no longer verifies: the loader's error, carried as it is."""
    return TopologyError(CASSETTE_FORMAT_CODE, problem.message, format_problem=problem)


class InteractionMatcher:
    """Matches live calls to recorded interactions by parent key + both fingerprints (MATCH-*).

    Build one with `InteractionMatcher.build`. `match` consumes exactly one interaction and
    commits only on success; `diagnose` runs the same analysis and changes nothing. Sibling
    groups are independent, so the order in which live siblings start does not matter.

    Replay delivers a matched call's recorded result without re-running it, so what that
    call made is never asked for again: unless `strict_subtrees`, every interaction recorded
    beneath a consumed call key is *covered* and counts as consumed for `assert_consumed`.
    Covering changes no lookup: a live call under a covered key still needs its exact group.

    The recorded calls are indexed by position (`RecordedCalls`): loaded interactions, or
    cassette-format's lazy reader, whose matched interaction is read and decoded only when
    `match` delivers it. State is kept in flat arrays, so building is one linear pass.
    """

    __slots__ = (
        "_beneath",
        "_by_sequence",
        "_calls",
        "_consumed",
        "_consumed_count",
        "_covered_count",
        "_cursor",
        "_first_child",
        "_next_sibling",
        "_strict_subtrees",
        "_tracker",
    )

    def __init__(
        self,
        physical: Sequence[CassetteInteraction] | RecordedCalls,
        *,
        strict_subtrees: bool = False,
    ) -> None:
        """Index interactions as given (file order); use `build` to validate a cassette first."""
        calls = MemoryCalls(physical) if isinstance(physical, Sequence) else physical
        size = len(calls)
        self._calls = calls
        self._consumed = bytearray(size)
        # Beneath some consumed call, closed under descent; covered = beneath and not consumed.
        self._beneath = bytearray(size)
        # Per group (at its first member): 0 = that member is next, k + 1 = member k, -1 = done.
        self._cursor = array("q", bytes(8 * size))
        first_child = array("q", [-1]) * size
        next_sibling = array("q", [-1]) * size
        for position in range(size - 1, -1, -1):  # children end up in file order
            parent = calls.parent_position(position)
            if parent >= 0:
                next_sibling[position] = first_child[parent]
                first_child[parent] = position
        self._first_child, self._next_sibling = first_child, next_sibling
        self._by_sequence: array[int] | None = None  # built by the first mismatch
        self._consumed_count = 0
        self._covered_count = 0
        self._tracker = TopologyTracker()
        self._strict_subtrees = strict_subtrees

    @classmethod
    def build(
        cls,
        cassette: CassetteFile | RecordedCalls,
        *,
        duplicate_policy: object = "reject",
        allow_redacted_replay: object = False,
        strict_subtrees: object = False,
    ) -> Result[InteractionMatcher, TopologyError]:
        """Validate options, duplicates and redactions, then index the cassette (MATCH-1).

        Args:
            cassette: a verified cassette (`cassette_format.CassetteFile`), or the recorded
                calls of one (`cassette_format.replay_index.ReplayIndex`, read lazily).
            duplicate_policy: "reject" refuses groups of duplicates with different outcomes;
                "sequence" replays them in occurrence order. Anything else is INVALID_CONFIG.
            allow_redacted_replay: whether a result stored with redactions may be replayed;
                anything but a bool is INVALID_CONFIG.
            strict_subtrees: when True, nothing is covered: every interaction, nested ones
                included, must be consumed by a live call (MATCH-4 as the reference has it);
                anything but a bool is INVALID_CONFIG.
        """
        invalid = invalid_matcher_options(duplicate_policy, allow_redacted_replay, strict_subtrees)
        if invalid is not None:
            return Failure(invalid)
        calls = (
            MemoryCalls(cassette.interactions) if isinstance(cassette, CassetteFile) else cassette
        )
        if duplicate_policy == "reject":
            ambiguous = calls.ambiguous_groups
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
            redacted = calls.first_redacted
            if redacted >= 0:
                return Failure(
                    TopologyError(
                        CASSETTE_MISMATCH,
                        f'interaction "{calls.call_key(redacted)}" contains a redacted result; '
                        "set allowRedactedReplay only if substituted output is acceptable",
                    )
                )
        return Success(cls(calls, strict_subtrees=strict_subtrees is True))

    def match(self, call: LiveCall) -> Result[CassetteInteraction, TopologyError]:
        """Consume the next recorded occurrence of this call's exact group (MATCH-2).

        `call` carries the live parent, both fingerprints and the normalized request (build
        it with `cassette_topology.live_call`). On failure nothing changes and a mismatch
        error carries the DIAG-2 diagnostic, so retrying a corrected call is safe. Errors:
        CASSETTE_AMBIGUOUS (second root, foreign subagent parent), CASSETTE_MISMATCH, and
        CASSETTE_FORMAT when a lazily read line no longer verifies (`format_problem`).
        """
        return self._tracker.peek_parent_key(call.parent).bind(
            lambda parent_key: self._consume(parent_key, call)
        )

    def _head(self, key: GroupKey) -> tuple[int, int]:
        """The group's first member and the member to replay next (-1 when none is left)."""
        first = self._calls.find_group(key)
        if first < 0:
            return first, first
        cursor = self._cursor[first]
        return first, first if cursor == 0 else cursor - 1

    def _consume(
        self, parent_key: str, call: LiveCall
    ) -> Result[CassetteInteraction, TopologyError]:
        # The plain triple (GroupKey): equal to the CallGroup, with no constructor per match.
        first, head = self._head(
            (parent_key, call.parent_context_fingerprint, call.request_fingerprint)
        )
        if head < 0:
            return self._mismatch(parent_key, call).bind(_mismatch_failure)
        return (
            self._calls.interaction(head)
            .alt(_format_failure)
            .map(lambda delivered: self._commit(call, parent_key, first, head, delivered))
        )

    def _commit(
        self,
        call: LiveCall,
        parent_key: str,
        first: int,
        head: int,
        delivered: CassetteInteraction,
    ) -> CassetteInteraction:
        """Commit root, the group's cursor and the subtree; plain assignments only."""
        self._tracker.remember_parent(call.parent, parent_key)
        following = self._calls.next_in_group(head)
        self._cursor[first] = following + 1 if following >= 0 else -1
        self._consumed[head] = 1
        self._consumed_count += 1
        self._cover_beneath(head)
        return delivered

    def _cover_beneath(self, delivered: int) -> None:
        """Cover the subtree of a call whose recorded result replay now delivers."""
        beneath = self._beneath
        if beneath[delivered]:
            self._covered_count -= 1  # it was covered; a live call consumed it after all
            return  # and its subtree is already beneath, as the set is closed under descent
        first_child, next_sibling = self._first_child, self._next_sibling
        if self._strict_subtrees or first_child[delivered] < 0:
            return  # the common case, a leaf: no walk at all
        consumed = self._consumed
        pending = [delivered]
        while pending:  # iterative, and a hand-made cycle of parent keys ends
            child = first_child[pending.pop()]
            while child >= 0:
                if child != delivered and not beneath[child]:
                    beneath[child] = 1
                    if not consumed[child]:
                        self._covered_count += 1
                    pending.append(child)
                child = next_sibling[child]

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
        _, head = self._head(call.group_under(parent_key))
        if head < 0:
            return self._mismatch(parent_key, call)
        return self._actual(parent_key, call).bind(
            lambda actual: self._candidate(head).map(
                lambda candidate: MatchDiagnostic(actual, candidate)
            )
        )

    def _actual(self, parent_key: str, call: LiveCall) -> Result[DiagnosticRequest, TopologyError]:
        return request_metadata(call.request).map(
            lambda metadata: DiagnosticRequest(call.group_under(parent_key), metadata)
        )

    def _mismatch(
        self, parent_key: str, call: LiveCall
    ) -> Result[MismatchDiagnostic, TopologyError]:
        # Built only after a lookup failed, so the matching hot path never pays for it.
        return self._actual(parent_key, call).bind(self._mismatch_of)

    def _mismatch_of(self, actual: DiagnosticRequest) -> Result[MismatchDiagnostic, TopologyError]:
        """DIAG-2's reason and candidates; a candidate's metadata is read when it is shown."""
        calls = self._calls
        recorded = [
            _Recorded(at, CallIdentity(CallGroup._make(calls.group(at)), calls.occurrence(at)))
            for at in self._sequence_order()
        ]
        reason, chosen = decide_reason(actual.group, recorded)
        return Fold.collect((self._candidate(item.position) for item in chosen), Success(())).map(
            lambda candidates: MismatchDiagnostic(reason, actual, candidates)
        )

    def _sequence_order(self) -> array[int]:
        """Positions in sequence order (ties in file order), sorted once."""
        if self._by_sequence is None:
            sequence = self._calls.sequence
            self._by_sequence = array("q", sorted(range(len(self._calls)), key=sequence))
        return self._by_sequence

    def _candidate(self, position: int) -> Result[DiagnosticCandidate, TopologyError]:
        consumed = bool(self._consumed[position])
        covered = bool(self._beneath[position]) and not consumed
        return (
            self._calls.interaction(position)
            .alt(_format_failure)
            .map(
                lambda item: DiagnosticCandidate(
                    sequence=item.sequence,
                    call_key=item.call_key,
                    identity=item.identity,
                    request_metadata=stored_request_metadata(item.request),
                    consumed=consumed,
                    covered=covered,
                )
            )
        )

    def assert_consumed(self) -> Result[None, TopologyError]:
        """Fail when interactions were neither replayed nor covered, naming up to five (MATCH-4).

        Covered interactions (beneath a delivered call) count as consumed unless the matcher
        is strict about subtrees; the message keeps the reference's wording either way.
        """
        remaining = self.remaining_count
        if not remaining:
            return Success(None)
        consumed, beneath = self._consumed, self._beneath
        sample: list[str] = []
        for position in range(len(consumed)):
            if not consumed[position] and not beneath[position]:
                sample.append(self._calls.call_key(position))
                if len(sample) == _UNCONSUMED_SAMPLE:
                    break
        return Failure(
            TopologyError(
                CASSETTE_MISMATCH,
                f"{remaining} cassette interaction(s) were not consumed: {', '.join(sample)}",
            )
        )

    def call_keys(self) -> frozenset[str]:
        """Every recorded call key this matcher replays from."""
        calls = self._calls
        return frozenset(calls.call_key(at) for at in range(len(calls)))

    def used_call_keys(self) -> frozenset[str]:
        """The call keys replayed by a live call or covered beneath one (issue 25)."""
        calls, consumed, beneath = self._calls, self._consumed, self._beneath
        return frozenset(
            calls.call_key(at) for at in range(len(calls)) if consumed[at] or beneath[at]
        )

    def is_consumed(self, call_key: str) -> bool:
        """Whether the interaction with this call key has been replayed by a live call."""
        position = self._calls.find_call(call_key)
        return position >= 0 and bool(self._consumed[position])

    def is_covered(self, call_key: str) -> bool:
        """Whether this interaction lies beneath a delivered call and no live call consumed it."""
        position = self._calls.find_call(call_key)
        return position >= 0 and bool(self._beneath[position]) and not self._consumed[position]

    def covered(self) -> tuple[CoveredInteraction, ...]:
        """The covered interactions, in physical order (keys and label, nothing read)."""
        if not self._covered_count:
            return ()
        calls, consumed = self._calls, self._consumed
        return tuple(
            CoveredInteraction(
                calls.sequence(at), calls.call_key(at), calls.parent_key(at), calls.label(at)
            )
            for at, below in enumerate(self._beneath)
            if below and not consumed[at]
        )

    @property
    def delivers_copies(self) -> bool:
        """Whether `match` delivers records decoded for that match alone (a lazy reader)."""
        return self._calls.delivers_copies

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
        return len(self._consumed) - self._consumed_count - self._covered_count

    def state(self) -> MatcherState:
        """A frozen copy of everything `match` may change."""
        calls, consumed, beneath = self._calls, self._consumed, self._beneath
        heads: list[tuple[GroupKey, int]] = []
        for position in range(len(consumed)):
            group = calls.group(position)
            if calls.find_group(group) != position:
                continue  # not its group's first member
            replayed, member = 0, position
            while member >= 0 and consumed[member]:
                replayed, member = replayed + 1, calls.next_in_group(member)
            heads.append((group, replayed))
        return MatcherState(
            topology=self._tracker.snapshot(),
            group_heads=tuple(sorted(heads)),
            consumed=frozenset(calls.call_key(at) for at, done in enumerate(consumed) if done),
            covered=frozenset(
                calls.call_key(at) for at, below in enumerate(beneath) if below and not consumed[at]
            ),
        )


def _mismatch_failure(
    diagnostic: MismatchDiagnostic,
) -> Result[CassetteInteraction, TopologyError]:
    return Failure(TopologyError(CASSETTE_MISMATCH, mismatch_message(diagnostic), diagnostic))
