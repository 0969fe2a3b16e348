"""An open-addressing hash table of line offsets in one `array('Q')`: 8 bytes per slot.

Each slot is 0 (empty) or `tag << offset_bits | (offset + 1)`: `tag` is the low bits of
the key's hash (as many as the offset leaves room for), `offset` where the key's line
starts. The table never holds keys: a tag hit is only a candidate, which the caller
confirms by reading that line back and comparing the exact text, so answers stay exact
whatever the tag width (a test shrinks it to force collisions). Linear probing, grown by
doubling past half full (`reserve` sizes it once for an expected count, so a file read
in order rarely rebuilds); the home slot is the tag's low bits, so growing needs no hash
the table does not store.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator

__all__ = ["OffsetTable"]

_WORD_BITS = 64
_INITIAL_SLOTS = 1 << 10


class OffsetTable:
    """Offsets of lines by a hash of their key; `insert` refuses a key already present."""

    __slots__ = ("_limit", "_mask", "_offset_bits", "_offset_mask", "_slots", "_tag_mask", "count")

    def __init__(self, offset_bits: int, tag_bits: int | None = None) -> None:
        """`offset_bits` must cover every offset inserted (`widen` raises it later)."""
        self.count = 0
        self._slots = array("Q", [0]) * _INITIAL_SLOTS
        self._mask = _INITIAL_SLOTS - 1
        self._limit = _INITIAL_SLOTS // 2
        self._offset_bits = offset_bits
        self._offset_mask = (1 << offset_bits) - 1
        width = _WORD_BITS - offset_bits if tag_bits is None else tag_bits
        self._tag_mask = (1 << max(0, min(width, _WORD_BITS - offset_bits))) - 1

    def fits(self, offset: int) -> bool:
        """Whether `offset` (plus one, 0 marks empty) fits the offset field."""
        return offset + 1 <= self._offset_mask

    def candidates(self, key_hash: int) -> Iterator[int]:
        """Offsets whose tag matches `key_hash`: every line with that key is among them."""
        slots, mask, bits = self._slots, self._mask, self._offset_bits
        tag = key_hash & self._tag_mask
        index = tag & mask
        word = slots[index]
        while word:
            if word >> bits == tag:
                yield (word & self._offset_mask) - 1
            index = (index + 1) & mask
            word = slots[index]

    def place(self, key_hash: int, offset: int) -> bool:
        """Add `offset` when no slot holds its tag (the usual case: nothing to read back).

        False, changing nothing, when a candidate exists: `insert` must confirm it then.
        """
        slots, mask, bits = self._slots, self._mask, self._offset_bits
        tag = key_hash & self._tag_mask
        index = tag & mask
        word = slots[index]
        while word:
            if word >> bits == tag:
                return False
            index = (index + 1) & mask
            word = slots[index]
        slots[index] = (tag << bits) | (offset + 1)  # `_fill`, inline: once per line
        self.count += 1
        if self.count > self._limit:
            self._rebuild(2 * len(slots), bits)
        return True

    def insert(self, key_hash: int, offset: int, same_key: Callable[[int], bool]) -> bool:
        """Add `offset` unless a candidate's line has the same key (`same_key`); False then."""
        slots, mask, bits = self._slots, self._mask, self._offset_bits
        tag = key_hash & self._tag_mask
        index = tag & mask
        word = slots[index]
        while word:
            if word >> bits == tag and same_key((word & self._offset_mask) - 1):
                return False
            index = (index + 1) & mask
            word = slots[index]
        self._fill(index, tag, offset)
        return True

    def _fill(self, index: int, tag: int, offset: int) -> None:
        """Store `offset` under `tag` in the free slot `index`; grow when past the load limit."""
        self._slots[index] = (tag << self._offset_bits) | (offset + 1)
        self.count += 1
        if self.count > self._limit:
            self._rebuild(2 * len(self._slots), self._offset_bits)

    def reserve(self, count: int) -> None:
        """Size the table for `count` keys at once (a guess: more keys still grow it)."""
        size = len(self._slots)
        while size // 2 < count:
            size *= 2
        if size > len(self._slots):
            self._rebuild(size, self._offset_bits)

    def widen(self, offset: int) -> None:
        """Make room for `offset` (a file that grew while read): fewer tag bits, same answers."""
        bits = max(self._offset_bits, (offset + 1).bit_length())
        self._rebuild(len(self._slots), bits)

    def _rebuild(self, size: int, offset_bits: int) -> None:
        old, old_bits, old_offsets = self._slots, self._offset_bits, self._offset_mask
        tag_mask = self._tag_mask & ((1 << (_WORD_BITS - offset_bits)) - 1)
        slots = array("Q", [0]) * size
        mask = size - 1
        for word in old:
            if word:
                tag = (word >> old_bits) & tag_mask
                index = tag & mask
                while slots[index]:
                    index = (index + 1) & mask
                slots[index] = (tag << offset_bits) | (word & old_offsets)
        self._slots, self._mask, self._limit = slots, mask, size // 2
        self._offset_bits, self._offset_mask, self._tag_mask = (
            offset_bits,
            (1 << offset_bits) - 1,
            tag_mask,
        )
