"""Maps volatile live agent ids to stable topology paths; every step commits or leaves no trace."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from returns.result import Failure, Result, Success

from cassette_topology.call_keys import ROOT_KEY, call_key
from cassette_topology.errors import CASSETTE_AMBIGUOUS, TopologyError
from cassette_topology.live import LiveCall, LiveParent, live_call
from cassette_topology.occurrences import OccurrenceCounts, group_digest
from cassette_topology.recorded_identity import RecordedIdentity


@dataclass(frozen=True, slots=True)
class ReservedCall:
    """The stable identity reserved for one recorded call (TOPO-3)."""

    parent_key: str
    call_key: str
    parent_context_fingerprint: str
    occurrence: int
    request_fingerprint: str


@dataclass(frozen=True, slots=True)
class TopologySnapshot:
    """A frozen copy of tracker state, for comparing before and after a step."""

    parent_keys: tuple[tuple[str, str], ...]
    #: (the group's compact key, its highest occurrence), sorted (occurrences.py).
    occurrences: tuple[tuple[bytes, int], ...]
    root_id: str | None


def subagent_parent_error(parent_id: str) -> TopologyError:
    """TOPO-2 case 2: a subagent parent this provider never created has no stable path."""
    return TopologyError(
        CASSETTE_AMBIGUOUS,
        f'subagent parent "{parent_id}" was not created through this cassette provider; '
        "its stable topology path is unavailable",
    )


def second_root_error(root_id: str, parent_id: str) -> TopologyError:
    """TOPO-2 case 4: a cassette covers exactly one logical root."""
    return TopologyError(
        CASSETTE_AMBIGUOUS,
        f'cassette observed more than one top-level parent ("{root_id}" and "{parent_id}"); '
        "record each root in a separate cassette",
    )


def remap_error(child_id: str, existing: str, new_key: str) -> TopologyError:
    """TOPO-5: a local child keeps the key it was first mapped to."""
    return TopologyError(
        CASSETTE_AMBIGUOUS,
        f'local child "{child_id}" was already mapped to "{existing}", '
        f'cannot remap it to "{new_key}"',
    )


class TopologyTracker:
    """Live id -> key map, per-group occurrence counters and the committed root (TOPO-1).

    Every public step first decides (returning a Failure with nothing changed) and only then
    commits with plain assignments that cannot fail, so a refused call can be retried.
    """

    __slots__ = ("_occurrences", "_parent_keys", "_root_id")

    def __init__(self, existing: Iterable[RecordedIdentity] = ()) -> None:
        """Start empty, or seeded with each group's highest recorded occurrence (append mode).

        The root id is never seeded, so a new root in an appended recording maps to `root`.
        """
        self._parent_keys: dict[str, str] = {}
        self._occurrences = OccurrenceCounts()
        self._root_id: str | None = None
        for member in existing:
            identity = member.identity
            key = group_digest(identity.group)
            self._occurrences.put(key, max(self._occurrences.get(key), identity.occurrence))

    def peek_parent_key(self, parent: LiveParent) -> Result[str, TopologyError]:
        """Resolve a live parent's key without committing anything (TOPO-2)."""
        key = self._parent_key(parent)
        return Failure(key) if isinstance(key, TopologyError) else Success(key)

    def _parent_key(self, parent: LiveParent) -> str | TopologyError:
        """`peek_parent_key`'s answer, plainly (wrapped once by its callers)."""
        known = self._parent_keys.get(parent.id)
        if known is not None:
            return known
        if parent.is_subagent:
            return subagent_parent_error(parent.id)
        if self._root_id is None or self._root_id == parent.id:
            return ROOT_KEY
        return second_root_error(self._root_id, parent.id)

    def commit_parent(self, parent: LiveParent) -> Result[str, TopologyError]:
        """Resolve a parent and, if it is the first root seen, remember it as the root."""
        return self.peek_parent_key(parent).map(lambda key: self.remember_parent(parent, key))

    def remember_parent(self, parent: LiveParent, key: str) -> str:
        """Commit a key `peek_parent_key` just returned; a new parent there is the root."""
        if parent.id not in self._parent_keys:
            self._root_id = parent.id
            self._parent_keys[parent.id] = key
        return key

    def reserve(self, call: LiveCall) -> Result[ReservedCall, TopologyError]:
        """Reserve the next occurrence of a call's group and its call key (TOPO-3)."""
        parent_key = self._parent_key(call.parent)
        if isinstance(parent_key, TopologyError):
            return Failure(parent_key)
        group = group_digest(call.group_under(parent_key))
        occurrence = self._occurrences.get(group) + 1
        return call_key(
            parent_key,
            call.label,
            call.parent_context_fingerprint,
            call.request_fingerprint,
            occurrence,
        ).map(lambda key: self._commit_reservation(parent_key, group, occurrence, key, call))

    def _commit_reservation(
        self, parent_key: str, group: bytes, occurrence: int, key: str, call: LiveCall
    ) -> ReservedCall:
        # Only plain assignments from here on: nothing below can fail half-way.
        self.remember_parent(call.parent, parent_key)
        self._occurrences.put(group, occurrence)
        return ReservedCall(
            parent_key=parent_key,
            call_key=key,
            parent_context_fingerprint=call.parent_context_fingerprint,
            occurrence=occurrence,
            request_fingerprint=call.request_fingerprint,
        )

    def register_local_child(self, child_id: str, key: str) -> Result[None, TopologyError]:
        """Map a recorded run's local child to that run's call key (TOPO-5); same key is a no-op."""
        existing = self._parent_keys.get(child_id)
        if existing is not None and existing != key:
            return Failure(remap_error(child_id, existing, key))
        self._parent_keys[child_id] = key
        return Success(None)

    def release_local_child(self, child_id: str, key: str) -> None:
        """Forget a local child whose run has ended, so a long recording keeps no per-call map.

        A one-shot child cannot start calls once its run ended (its nested calls start during
        the run); a later start naming it is refused as a parent this provider does not know.
        """
        if self._parent_keys.get(child_id) == key and child_id != self._root_id:
            del self._parent_keys[child_id]

    def snapshot(self) -> TopologySnapshot:
        """A frozen copy of the whole state."""
        return TopologySnapshot(
            parent_keys=tuple(sorted(self._parent_keys.items())),
            occurrences=self._occurrences.items(),
            root_id=self._root_id,
        )

    def reserve_normalized(
        self,
        parent: LiveParent,
        request: Mapping[str, object],
        parent_context: object,
        *,
        shown_label: str | None = None,
    ) -> Result[ReservedCall, TopologyError]:
        """Fingerprint a normalized request and parent context, then reserve (TOPO-3).

        `shown_label` replaces the request's label in the call key only (fingerprints still
        cover the request as given).
        """
        return live_call(parent, request, parent_context, shown_label=shown_label).bind(
            self.reserve
        )
