"""Distinct strings kept end to end in one bytearray, found through an open-addressing table.

The replay index (`replay_index`) holds 100,000 call keys and parent keys; as `str` objects
in a dict they cost about 150 bytes each, here their UTF-8 bytes plus about 30 (an end
offset, the string's hash and a table slot). Ids are dense, in insertion order, so callers
keep per-key facts in parallel arrays. A slot hit is confirmed by the stored hash and then
the bytes, so answers are exact whatever the hash (tests narrow it to force collisions).
Lone surrogates (JSON allows them) round-trip through `surrogatepass`.
"""

from __future__ import annotations

from array import array

__all__ = ["KeyTable"]

_INITIAL_SLOTS = 1 << 6
#: The first keys are also kept in a dict: labels and parent contexts are usually few, and
#: a dict hit costs a tenth of a probe. Bounded, so unique keys still cost only their bytes.
FRONT_KEYS = 1024


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class KeyTable:
    """Interned strings by dense id: `add` (find or append), `find`, `text`."""

    __slots__ = (
        "_blob",
        "_ends",
        "_front",
        "_front_limit",
        "_hash_mask",
        "_hashes",
        "_mask",
        "_slots",
    )

    def __init__(self, tag_bits: int | None = None, front_keys: int = FRONT_KEYS) -> None:
        """`tag_bits` keeps only that many bits of each hash (tests force collisions).

        `front_keys` bounds the dict of first keys: 0 for keys that never repeat (a dict
        miss costs more than it saves), more for keys looked up many times each.
        """
        self._blob = bytearray()
        self._ends = array("Q")
        self._hashes = array("q")
        self._slots = array("i", bytes(4 * _INITIAL_SLOTS))  # id + 1; 0 is empty
        self._mask = _INITIAL_SLOTS - 1
        self._hash_mask = -1 if tag_bits is None else (1 << tag_bits) - 1
        self._front: dict[str, int] = {}
        self._front_limit = front_keys if tag_bits is None else 0  # narrowed: probe every key

    def __len__(self) -> int:
        return len(self._ends)

    def _bytes(self, key_id: int) -> bytes:
        start = self._ends[key_id - 1] if key_id else 0
        return bytes(self._blob[start : self._ends[key_id]])

    def text(self, key_id: int) -> str:
        """The string stored under `key_id`."""
        return self._bytes(key_id).decode("utf-8", "surrogatepass")

    def _probe(self, text: str, key_hash: int) -> int:
        """The slot holding `text`, or the empty slot where it would go."""
        slots, hashes, mask = self._slots, self._hashes, self._mask
        index = key_hash & mask
        while True:
            found = slots[index]
            if not found or (
                hashes[found - 1] == key_hash and self._bytes(found - 1) == _encoded(text)
            ):
                return index
            index = (index + 1) & mask

    def find(self, text: str) -> int:
        """The id of `text`, or -1 when it was never added."""
        found = self._front.get(text)
        if found is not None:
            return found
        return self._slots[self._probe(text, hash(text) & self._hash_mask)] - 1

    def add(self, text: str) -> int:
        """The id of `text`, appending it first when it is new."""
        front = self._front
        if front:  # empty when bounded to none: no lookup that always misses
            found = front.get(text)
            if found is not None:
                return found
        key_hash = hash(text) & self._hash_mask
        slots, mask, hashes = self._slots, self._mask, self._hashes
        index = key_hash & mask
        found = slots[index]
        while found:  # the probe of `_probe`, inline: one call per call key of the file
            if hashes[found - 1] == key_hash and self._bytes(found - 1) == _encoded(text):
                return found - 1
            index = (index + 1) & mask
            found = slots[index]
        key_id = len(hashes)
        blob = self._blob
        blob += text.encode("utf-8", "surrogatepass")  # `_encoded`, inline
        self._ends.append(len(blob))
        hashes.append(key_hash)
        slots[index] = key_id + 1
        if 3 * key_id >= 2 * mask:
            self._grow(2 * len(slots))
        if len(front) < self._front_limit:
            front[text] = key_id
        return key_id

    def reserve(self, count: int) -> None:
        """Size the table for `count` keys at once (a guess: more keys still grow it)."""
        size = len(self._slots)
        while 3 * count >= 2 * size:
            size *= 2
        if size > len(self._slots):
            self._grow(size)

    def _grow(self, size: int) -> None:
        """Resize the table to `size` slots, placing every id again by its stored hash."""
        slots = array("i", bytes(4 * size))
        mask = size - 1
        for key_id, key_hash in enumerate(self._hashes):
            index = key_hash & mask
            while slots[index]:
                index = (index + 1) & mask
            slots[index] = key_id + 1
        self._slots, self._mask = slots, mask
