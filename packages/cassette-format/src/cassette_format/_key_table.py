"""Distinct strings kept end to end in one bytearray, found by an `OffsetTable` of their ids.

The replay index (`replay_index`) holds 100,000 call keys and parent keys; as `str` objects
in a dict they cost about 150 bytes each, here their UTF-8 bytes plus about 22 (an end
offset and a table slot). Ids are dense, in insertion order, so callers keep per-key facts
in parallel arrays. Lone surrogates (JSON allows them) round-trip through `surrogatepass`.
"""

from __future__ import annotations

from array import array

from cassette_format._offset_table import OffsetTable

__all__ = ["KeyTable"]

#: Ids are stored as table "offsets": 32 bits of id leave 31 bits of hash tag per slot.
_ID_BITS = 33


def _encoded(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class KeyTable:
    """Interned strings by dense id: `add` (find or append), `find`, `text`."""

    __slots__ = ("_blob", "_ends", "_table")

    def __init__(self, tag_bits: int | None = None) -> None:
        """`tag_bits` narrows the hash tags (tests force collisions with it)."""
        self._blob = bytearray()
        self._ends = array("Q")
        self._table = OffsetTable(_ID_BITS, tag_bits)

    def __len__(self) -> int:
        return len(self._ends)

    def _bytes(self, key_id: int) -> bytes:
        start = self._ends[key_id - 1] if key_id else 0
        return bytes(self._blob[start : self._ends[key_id]])

    def text(self, key_id: int) -> str:
        """The string stored under `key_id`."""
        return self._bytes(key_id).decode("utf-8", "surrogatepass")

    def find(self, text: str) -> int:
        """The id of `text`, or -1 when it was never added."""
        encoded = _encoded(text)
        for key_id in self._table.candidates(hash(text)):
            if self._bytes(key_id) == encoded:
                return key_id
        return -1

    def add(self, text: str) -> int:
        """The id of `text`, appending it first when it is new."""
        found = self.find(text)
        if found >= 0:
            return found
        key_id = len(self._ends)
        self._blob += _encoded(text)
        self._ends.append(len(self._blob))
        self._table.insert(hash(text), key_id, _never_same)
        return key_id


def _never_same(_: int) -> bool:
    """`find` already looked: the key is new, so no candidate is the same."""
    return False
