"""FMT-15/16 across lines, once for reader and writer: each record's links to those before it.

A record links onto the chain when its request storage is the header's, and its sequence,
its call key and its (group, occurrence) were not seen before (FMT-16); its own hash then
becomes the `previousHash` the next record must name (FMT-15). `ChainLinks` answers which
rule a record breaks as a code (`rules.chain`); the reader words it as the reference does
(`line N duplicates ...`), the writer as a refused write (`interaction ... was already
written`), both with `refusal_words`' values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cassette_format.read.line_keys import safe_int
from cassette_format.read.sequences import SeenSequences
from cassette_format.records.declare import wires
from cassette_format.records.identity import CALL_KEY, OCCURRENCE
from cassette_format.records.model import (
    HASH,
    STORAGE,
    CassetteHeader,
    InteractionBody,
)
from cassette_format.rules.chain import DUPLICATE_SEQUENCE, LINKED, OTHER_STORAGE

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cassette_format.read.line_keys import LineKeys
    from cassette_format.read.record_line import ParsedLine

__all__ = ["ChainLinks", "refusal_words"]

_REQUEST = wires(InteractionBody).request
_SEQUENCE = wires(InteractionBody).sequence
_REQUEST_STORAGE = wires(CassetteHeader).request_storage


class ChainLinks:
    """The previous record's hash, the header's storage, and the sequences and keys seen."""

    __slots__ = ("keys", "previous_hash", "sequences", "storage")

    def __init__(self, keys: LineKeys) -> None:
        self.keys = keys
        self.sequences = SeenSequences()
        self.storage = ""
        self.previous_hash = ""

    def start(self, header: Mapping[str, Any]) -> None:
        """Chain onto a verified header: its storage policy and its hash (FMT-15)."""
        self.storage = str(header[_REQUEST_STORAGE])
        self.previous_hash = str(header[HASH])

    def refusal(self, record: Any) -> int:
        """Which FMT-16 rule a checked record would break here (LINKED: none); changes nothing."""
        if record[_REQUEST][STORAGE] != self.storage:
            return OTHER_STORAGE
        if safe_int(record[_SEQUENCE]) in self.sequences:
            return DUPLICATE_SEQUENCE
        return self.keys.seen(record) or LINKED

    def link(self, parsed: ParsedLine, offset: int) -> int:
        """Link a checked record whose line starts at `offset`; LINKED, or the rule it breaks."""
        record: Any = parsed.value
        if record[_REQUEST][STORAGE] != self.storage:
            return OTHER_STORAGE
        sequence = record[_SEQUENCE]
        if type(sequence) is not int:
            sequence = int(sequence)
        if not self.sequences.add_new(sequence):
            return DUPLICATE_SEQUENCE
        duplicate = self.keys.add(parsed, offset)  # a refused line ends the chain: no undo
        if duplicate is not None:
            return duplicate
        self.previous_hash = record[HASH]
        return LINKED


def refusal_words(record: Any) -> tuple[int, str, int]:
    """The sequence, call key and occurrence a refusal message names."""
    return safe_int(record[_SEQUENCE]), str(record[CALL_KEY]), safe_int(record[OCCURRENCE])
