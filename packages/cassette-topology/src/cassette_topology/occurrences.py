"""Per-group occurrence counters kept compactly: a recording of 1,000,000 calls holds 1,000,000.

A group (parent key, parent-context fingerprint, request fingerprint) is three strings of
about 150 characters; kept as such, with its tuple and dict slot, it cost about 400 bytes per
recorded call (issue 26). Here a group is its 16-byte BLAKE2b digest (a 2**-128 chance per
pair of two groups sharing one, far below a hardware fault), and the common case, a group
that occurred once, sits in a set; only groups that occurred again get a count.
"""

from __future__ import annotations

import hashlib
from typing import Final

from cassette_format.records.identity import CallGroup

__all__ = ["OccurrenceCounts", "group_digest"]

_DIGEST_BYTES: Final = 16


def group_digest(group: CallGroup) -> bytes:
    """A group's compact key: BLAKE2b-128 of its three members, NUL-joined as the reference."""
    joined = "\0".join(group).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(joined, digest_size=_DIGEST_BYTES).digest()


class OccurrenceCounts:
    """The highest occurrence reserved in each group; groups seen once are only remembered."""

    __slots__ = ("_again", "_once")

    def __init__(self) -> None:
        self._once: set[bytes] = set()
        self._again: dict[bytes, int] = {}

    def get(self, key: bytes) -> int:
        """The highest occurrence of the group so far (0 if never seen)."""
        count = self._again.get(key)
        if count is not None:
            return count
        return 1 if key in self._once else 0

    def put(self, key: bytes, occurrence: int) -> None:
        """Record the group's highest occurrence (cannot fail)."""
        if occurrence <= 1:
            self._once.add(key)
            return
        self._once.discard(key)
        self._again[key] = occurrence

    def items(self) -> tuple[tuple[bytes, int], ...]:
        """Every (group key, occurrence), sorted: for snapshots compared before and after."""
        once = ((key, 1) for key in self._once)
        return tuple(sorted((*once, *self._again.items())))
