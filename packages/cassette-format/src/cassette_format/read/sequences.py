"""The set of sequences seen so far, sized for the dense 1..n a valid cassette holds (FMT-16, 17).

A bitmap covers small sequences (one bit each, grown by doubling while it stays within a
few times the count seen), a plain set takes any outlier, so a 100,000-line file costs
kilobytes rather than megabytes and a hostile `sequence: 9e15` costs one set entry.
"""

from __future__ import annotations

__all__ = ["SeenSequences"]

_INITIAL_BITS = 1 << 16


class SeenSequences:
    """Distinct positive sequences; `first_missing` answers the contiguity rule."""

    __slots__ = ("_bits", "_outliers", "count", "highest")

    def __init__(self) -> None:
        self._bits = bytearray(_INITIAL_BITS // 8)
        self._outliers: set[int] = set()
        self.count = 0
        self.highest = 0

    def __contains__(self, sequence: int) -> bool:
        if sequence < 8 * len(self._bits):
            return bool(self._bits[sequence >> 3] & (1 << (sequence & 7)))
        return sequence in self._outliers

    def add_new(self, sequence: int) -> bool:
        """Record a positive sequence unless it was seen (then False, nothing changes)."""
        bits = self._bits
        if sequence < 8 * len(bits):  # `add` would set this bit and nothing else
            mask = 1 << (sequence & 7)
            if bits[sequence >> 3] & mask:
                return False
            bits[sequence >> 3] |= mask
            self.count += 1
            self.highest = max(self.highest, sequence)
            return True
        if sequence in self._outliers:
            return False
        self.add(sequence)
        return True

    def add(self, sequence: int) -> None:
        """Record a positive sequence not seen before (the caller checked `in` first)."""
        bits = self._bits
        if 8 * len(bits) <= sequence < 4 * (self.count + _INITIAL_BITS):
            self._grow(sequence)
            bits = self._bits
        if sequence < 8 * len(bits):
            bits[sequence >> 3] |= 1 << (sequence & 7)
        else:
            self._outliers.add(sequence)
        self.count += 1
        self.highest = max(self.highest, sequence)

    def _grow(self, sequence: int) -> None:
        old = self._bits
        grown = bytearray(max(2 * len(old), sequence // 8 + 1))
        grown[: len(old)] = old
        self._bits = grown
        self._rehome(list(self._outliers))

    def _rehome(self, sequences: list[int]) -> None:
        """Put each sequence in the bitmap when it now fits there, else among the outliers."""
        bits = self._bits
        limit = 8 * len(bits)
        for sequence in sequences:
            if sequence < limit:
                self._outliers.discard(sequence)
                bits[sequence >> 3] |= 1 << (sequence & 7)
            else:
                self._outliers.add(sequence)

    def first_missing(self) -> int | None:
        """The smallest of 1..count absent, or None when exactly 1..count are present."""
        if self.highest == self.count:  # distinct positives whose maximum is their count
            return None
        return next(s for s in range(1, self.count + 1) if s not in self)
