"""FMT-15/16 across lines, once for reader and writer: each record's links to those before it.

A record links onto the chain when its request storage is the header's, and its sequence,
its call key and its (group, occurrence) were not seen before (FMT-16); its own hash then
becomes the `previousHash` the next record must name (FMT-15). `ChainLinks` answers which
rule a record breaks as a code; the reader words it as the reference does (`line N
duplicates ...`), the writer as a refused write (`interaction ... was already written`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from cassette_format.errors import CassetteFormatError
from cassette_format.read.line_keys import DUPLICATE_CALL_KEY, DUPLICATE_OCCURRENCE, safe_int
from cassette_format.read.sequences import SeenSequences

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cassette_format.read.line_keys import LineKeys
    from cassette_format.read.record_line import ParsedLine

__all__ = [
    "DUPLICATE_CALL_KEY",
    "DUPLICATE_OCCURRENCE",
    "DUPLICATE_SEQUENCE",
    "LINKED",
    "OTHER_STORAGE",
    "ChainLinks",
    "line_refusal",
    "write_refusal",
]

LINKED: Final = 0
OTHER_STORAGE: Final = 3
DUPLICATE_SEQUENCE: Final = 4


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
        self.storage = str(header["requestStorage"])
        self.previous_hash = str(header["hash"])

    def refusal(self, record: Any) -> int:
        """Which FMT-16 rule a checked record would break here (LINKED: none); changes nothing."""
        if record["request"]["storage"] != self.storage:
            return OTHER_STORAGE
        if safe_int(record["sequence"]) in self.sequences:
            return DUPLICATE_SEQUENCE
        return self.keys.seen(record) or LINKED

    def link(self, parsed: ParsedLine, offset: int) -> int:
        """Link a checked record whose line starts at `offset`; LINKED, or the rule it breaks."""
        record: Any = parsed.value
        if record["request"]["storage"] != self.storage:
            return OTHER_STORAGE
        sequence = safe_int(record["sequence"])
        sequences = self.sequences
        if sequence in sequences:
            return DUPLICATE_SEQUENCE
        duplicate = self.keys.add(parsed, offset)
        if duplicate is not None:
            return duplicate
        sequences.add(sequence)
        self.previous_hash = record["hash"]
        return LINKED


def line_refusal(code: int, number: int, record: Any, storage: str) -> CassetteFormatError:
    """The reference's message for line `number` breaking rule `code` (FMT-16)."""
    if code == OTHER_STORAGE:
        message = f'line {number}.request.storage must match header.requestStorage "{storage}"'
    elif code == DUPLICATE_SEQUENCE:
        message = f"line {number} duplicates sequence {safe_int(record['sequence'])}"
    elif code == DUPLICATE_CALL_KEY:
        message = f'line {number} duplicates call key "{record["callKey"]}"'
    else:
        message = (
            f"line {number} duplicates occurrence {safe_int(record['occurrence'])} "
            "for one parent-context/request group"
        )
    return CassetteFormatError(message, line=number)


def write_refusal(code: int, record: Any, storage: str) -> CassetteFormatError:
    """Why the writer refuses a record the loader would reject beside what was written."""
    if code == OTHER_STORAGE:
        message = f'interaction request.storage must match header.requestStorage "{storage}"'
    elif code == DUPLICATE_SEQUENCE:
        message = f"interaction sequence {safe_int(record['sequence'])} was already written"
    elif code == DUPLICATE_CALL_KEY:
        message = f'interaction call key "{record["callKey"]}" was already written'
    else:
        message = (
            f"interaction occurrence {safe_int(record['occurrence'])} was already written "
            "for one parent-context/request group"
        )
    return CassetteFormatError(message)
