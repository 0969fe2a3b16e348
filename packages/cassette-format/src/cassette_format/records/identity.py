"""Which recorded call a record is: its parent-context/request group and its occurrence.

One value for every place that groups, compares or shows calls: the loader's duplicate
checks (FMT-16, FMT-17, FMT-19), topology's occurrence counters and matcher index (TOPO-1,
TOPO-3, MATCH-1), mismatch diagnostics (DIAG-2, DIAG-3) and cassette diff (DIFF-1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, NamedTuple, TypeAlias

from cassette_canonical import utf16_sort_key

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "CALL_KEY",
    "OCCURRENCE",
    "PARENT_CONTEXT_FINGERPRINT",
    "PARENT_KEY",
    "REQUEST_FINGERPRINT",
    "CallGroup",
    "CallIdentity",
    "GroupKey",
    "IdentityMembers",
]

# The wire names of an interaction's identity members (FMT-10), declared here once: the
# interaction's declaration (`records.model`), the key index (`read.line_keys`) and the
# JSON views below all name them through these.
CALL_KEY: Final = "callKey"
PARENT_KEY: Final = "parentKey"
PARENT_CONTEXT_FINGERPRINT: Final = "parentContextFingerprint"
OCCURRENCE: Final = "occurrence"
REQUEST_FINGERPRINT: Final = "requestFingerprint"

#: A `CallGroup`'s plain triple, which equals and hashes as it: the cheap key of hot indexes
#: (a NamedTuple costs a Python-level constructor per key).
GroupKey: TypeAlias = tuple[str, str, str]


class CallGroup(NamedTuple):
    """Every occurrence of one request under one parent context (FMT-16's group).

    A tuple, so it is the dict key itself and equals the plain triple the reference NUL-joins.
    """

    parent_key: str
    parent_context_fingerprint: str
    request_fingerprint: str

    def to_json(self) -> dict[str, JsonValue]:
        """The three members in the reference order (DIAG-3 `actual`)."""
        return {
            PARENT_KEY: self.parent_key,
            PARENT_CONTEXT_FINGERPRINT: self.parent_context_fingerprint,
            REQUEST_FINGERPRINT: self.request_fingerprint,
        }


@dataclass(frozen=True, slots=True)
class CallIdentity:
    """One recorded call: its group and its 1-based occurrence within it (DIFF-1)."""

    group: CallGroup
    occurrence: int

    def sort_key(self) -> tuple[bytes, bytes, bytes, int]:
        """DIFF-1 order: the strings by UTF-16 code units (as JS compares), then occurrence."""
        return (
            utf16_sort_key(self.group.parent_key),
            utf16_sort_key(self.group.parent_context_fingerprint),
            utf16_sort_key(self.group.request_fingerprint),
            self.occurrence,
        )

    def to_json(self) -> dict[str, JsonValue]:
        """The group's members, then `occurrence` (DIFF-5 call documents)."""
        document = self.group.to_json()
        document[OCCURRENCE] = self.occurrence
        return document

    def record_json(self, call_key: str) -> dict[str, JsonValue]:
        """The identity members as a record line orders them, call key first (FMT-10, DIAG-3)."""
        return {
            CALL_KEY: call_key,
            PARENT_KEY: self.group.parent_key,
            PARENT_CONTEXT_FINGERPRINT: self.group.parent_context_fingerprint,
            OCCURRENCE: self.occurrence,
            REQUEST_FINGERPRINT: self.group.request_fingerprint,
        }


class IdentityMembers:
    """The identity members of an interaction line and the values built from them (FMT-10).

    A base for the record classes, which declare these members as their own fields.
    """

    __slots__ = ()

    call_key: str
    parent_key: str
    parent_context_fingerprint: str
    occurrence: int
    request_fingerprint: str

    @property
    def group_key(self) -> GroupKey:
        """The parent-context/request group this interaction belongs to, as its plain triple."""
        return (self.parent_key, self.parent_context_fingerprint, self.request_fingerprint)

    @property
    def identity(self) -> CallIdentity:
        """Which recorded call this is: its group and occurrence (FMT-16, DIFF-1)."""
        return CallIdentity(CallGroup._make(self.group_key), self.occurrence)
