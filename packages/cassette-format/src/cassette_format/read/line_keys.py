"""FMT-16, 17, 19 across lines: unique call keys and occurrences, contiguity, ambiguity.

Two ways to remember what was seen, with the same verdicts:

- `CompactKeys` (a seekable stream): two `OffsetTable`s, one by call key, one by
  (group, occurrence), each slot a hash tag and the line's offset, about 16 bytes per
  interaction; a tag hit is confirmed by reading that line back (`LineReader`). A group's
  occurrences are exactly 1..n when every member after occurrence 1 finds its predecessor
  (group, occurrence - 1), checked in `finish` for the members kept by offset.
- `ExactKeys` (a pipe, or a document held in memory): the keys themselves in a set and a
  dict, groups in first-seen order, and each group's first outcome when asked to count
  ambiguity (no line can be read again there).

`add` answers which FMT-16 rule a line breaks (call key first, then occurrence); `finish`
answers the FMT-17 missing occurrence of the first group (in first-seen order) lacking one.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from cassette_format.read.lines import expected_lines
from cassette_format.read.offset_table import OffsetTable
from cassette_format.read.outcome_text import outcome_text
from cassette_format.records.identity import (
    CALL_KEY,
    OCCURRENCE,
    PARENT_CONTEXT_FINGERPRINT,
    PARENT_KEY,
    REQUEST_FINGERPRINT,
)
from cassette_format.rules.chain import DUPLICATE_CALL_KEY, DUPLICATE_OCCURRENCE

if TYPE_CHECKING:
    from cassette_format.read.record_line import ParsedLine
    from cassette_format.read.reread import LineReader
    from cassette_format.records.identity import GroupKey

__all__ = [
    "DUPLICATE_CALL_KEY",
    "DUPLICATE_OCCURRENCE",
    "CompactKeys",
    "ExactKeys",
    "LineKeys",
    "safe_int",
]


Member = tuple[str, str, str, Any]


def _group(record: Any) -> GroupKey:
    """The parent-context/request group of a validated interaction record."""
    return (record[PARENT_KEY], record[PARENT_CONTEXT_FINGERPRINT], record[REQUEST_FINGERPRINT])


def _member(record: Any) -> Member | None:
    """(group..., occurrence) of a record read back; None if it is no interaction any more."""
    try:
        return (*_group(record), record[OCCURRENCE])
    except (KeyError, TypeError):
        return None


def _call_key(record: Any) -> Any:
    """The call key of a record read back (a dict: `LineReader` returns no other)."""
    return record.get(CALL_KEY)


def safe_int(value: int | float) -> int:
    """A validated safe integer (an int, or an integral float such as `2.0`) as an int."""
    return value if type(value) is int else int(value)


def _occurrence(record: Any) -> int:
    """A validated occurrence as an int (`2.0` is occurrence 2)."""
    return safe_int(record[OCCURRENCE])


class CompactKeys:
    """Keys remembered as offsets into a seekable stream (8 bytes per slot, two tables)."""

    __slots__ = ("_calls", "_later", "_members", "_reader", "_room", "ambiguous")

    def __init__(self, reader: LineReader, tag_bits: int | None = None) -> None:
        """`tag_bits` narrows the hash tags (tests force collisions with it)."""
        bits = max(1, (reader.size + 1).bit_length())
        self._reader = reader
        self._calls = OffsetTable(bits, tag_bits)
        self._members = OffsetTable(bits, tag_bits)
        self._room = (1 << bits) - 2  # the largest offset both tables hold (`OffsetTable.fits`)
        self._later = array("Q")  # offsets of members after occurrence 1, in file order
        self.ambiguous: int | None = None

    def add(self, parsed: ParsedLine, offset: int) -> int | None:
        """Remember a validated line; DUPLICATE_CALL_KEY / DUPLICATE_OCCURRENCE, or None."""
        # One call per line of the file: the steps are inline on purpose.
        record: Any = parsed.value
        calls, members = self._calls, self._members
        if offset > self._room:  # the file grew while it was read
            self._widen(offset)
        if not calls.count and parsed.canonical:
            self._reserve(parsed.canonical, offset)
        call_key = record[CALL_KEY]
        call_hash = hash(call_key)
        if not calls.place(call_hash, offset) and not calls.insert(
            call_hash, offset, self._same_call_key(call_key)
        ):
            return DUPLICATE_CALL_KEY
        occurrence = record[OCCURRENCE]
        if type(occurrence) is not int:
            occurrence = int(occurrence)
        member = (
            record[PARENT_KEY],
            record[PARENT_CONTEXT_FINGERPRINT],
            record[REQUEST_FINGERPRINT],
            occurrence,
        )
        member_hash = hash(member)
        if not members.place(member_hash, offset) and not members.insert(
            member_hash, offset, self._same_member(member)
        ):
            return DUPLICATE_OCCURRENCE
        if occurrence > 1:
            self._later.append(offset)
        return None

    def _widen(self, offset: int) -> None:
        """Make both tables hold `offset`, past the size the file had when it was opened."""
        self._calls.widen(offset)
        self._members.widen(offset)
        self._room = max(self._room, (1 << (offset + 1).bit_length()) - 2)

    def _reserve(self, line: bytes, offset: int) -> None:
        """Size both tables once, for as many lines as the first one's length suggests."""
        expected = expected_lines(self._reader.size, offset, line)
        self._calls.reserve(expected)
        self._members.reserve(expected)

    def _same_call_key(self, call_key: str) -> Callable[[int], bool]:
        """Whether the line at an offset has `call_key` (a tag hit, confirmed by reading)."""
        read = self._reader.parsed_at

        def same_call_key(at: int) -> bool:
            found = read(at)
            return found is not None and _call_key(found.value) == call_key

        return same_call_key

    def _same_member(self, member: Member) -> Callable[[int], bool]:
        """Whether the line at an offset is (group, occurrence) `member`, confirmed by reading."""
        read = self._reader.parsed_at

        def same_member(at: int) -> bool:
            found = read(at)
            return found is not None and _member(found.value) == member

        return same_member

    def seen(self, record: Any) -> int | None:
        """Which key of a checked record was remembered already (as `add`), changing nothing."""
        read = self._reader.parsed_at
        call_key = record[CALL_KEY]
        for at in self._calls.candidates(hash(call_key)):
            found = read(at)
            if found is not None and _call_key(found.value) == call_key:
                return DUPLICATE_CALL_KEY
        if self._find((*_group(record), _occurrence(record))) is not None:
            return DUPLICATE_OCCURRENCE
        return None

    def _find(self, member: Member) -> tuple[int, ParsedLine] | None:
        read = self._reader.parsed_at
        for at in self._members.candidates(hash(member)):
            found = read(at)
            if found is not None and _member(found.value) == member:
                return at, found
        return None

    def finish(self) -> int | None:
        """FMT-17's missing occurrence, or None; also counts ambiguous groups (FMT-19)."""
        read = self._reader.parsed_at
        broken: set[GroupKey] = set()
        ambiguous: set[int] = set()
        anchor: tuple[GroupKey | None, int, bytes] = (None, -1, b"")  # the last group's first
        for offset in self._later:
            parsed = read(offset)
            member = None if parsed is None else _member(parsed.value)
            if parsed is None or member is None:
                continue  # changed since it verified: nothing it says can be trusted
            group, occurrence = member[:3], member[3]
            previous = self._find((*group, occurrence - 1))
            if previous is None:
                broken.add(group)
                continue
            if broken:
                continue  # the file fails; ambiguity no longer matters
            if anchor[0] != group:
                first = previous if occurrence == 2 else self._find((*group, 1))
                if first is None:
                    continue  # this group lacks occurrence 1: a later member will say so
                anchor = (group, first[0], outcome_text(first[1]))
            if outcome_text(parsed) != anchor[2]:
                ambiguous.add(anchor[1])
        self.ambiguous = len(ambiguous)
        return self._first_missing(broken) if broken else None

    def _first_missing(self, broken: set[GroupKey]) -> int:
        """The lowest missing occurrence of the first-seen broken group, from a second pass."""
        first: GroupKey | None = None
        occurrences: set[int] = set()
        for parsed in self._reader.interactions():
            member = _member(parsed.value)
            if member is None:
                continue
            if first is None and member[:3] in broken:
                first = member[:3]
            if member[:3] == first:
                occurrences.add(member[3])
        size = len(occurrences)
        return next((o for o in range(1, size + 1) if o not in occurrences), 1)


class _Group:
    """A group seen more than once: its occurrences."""

    __slots__ = ("occurrences",)

    def __init__(self, occurrences: set[int]) -> None:
        self.occurrences = occurrences


class ExactKeys:
    """Keys held in memory: call keys in a set, groups (first-seen order) in a dict."""

    __slots__ = ("_ambiguous", "_call_keys", "_first_outcomes", "_groups", "ambiguous")

    def __init__(self, *, count_ambiguity: bool) -> None:
        self._call_keys: set[str] = set()
        self._groups: dict[GroupKey, int | _Group] = {}
        self._first_outcomes: dict[GroupKey, bytes] | None = {} if count_ambiguity else None
        self._ambiguous: set[GroupKey] = set()
        self.ambiguous: int | None = None

    def add(self, parsed: ParsedLine, offset: int) -> int | None:
        """Remember a validated line; DUPLICATE_CALL_KEY / DUPLICATE_OCCURRENCE, or None."""
        record: Any = parsed.value
        call_key: str = record[CALL_KEY]
        if call_key in self._call_keys:
            return DUPLICATE_CALL_KEY
        self._call_keys.add(call_key)
        occurrence = _occurrence(record)
        group = _group(record)
        seen = self._groups.get(group)
        first_outcomes = self._first_outcomes
        if seen is None:
            self._groups[group] = occurrence
            if first_outcomes is not None:
                first_outcomes[group] = outcome_text(parsed)
            return None
        if isinstance(seen, int):
            seen = self._groups[group] = _Group({seen})
        if occurrence in seen.occurrences:
            return DUPLICATE_OCCURRENCE
        seen.occurrences.add(occurrence)
        if first_outcomes is not None and outcome_text(parsed) != first_outcomes[group]:
            self._ambiguous.add(group)
        return None

    def seen(self, record: Any) -> int | None:
        """Which key of a checked record was remembered already (as `add`), changing nothing."""
        if record[CALL_KEY] in self._call_keys:
            return DUPLICATE_CALL_KEY
        seen = self._groups.get(_group(record))
        occurrence = _occurrence(record)
        if seen is not None and (
            seen == occurrence if isinstance(seen, int) else occurrence in seen.occurrences
        ):
            return DUPLICATE_OCCURRENCE
        return None

    def finish(self) -> int | None:
        """FMT-17's missing occurrence of the first-seen group lacking one, or None."""
        self.ambiguous = len(self._ambiguous) if self._first_outcomes is not None else None
        for seen in self._groups.values():
            if isinstance(seen, int):
                if seen != 1:
                    return 1
                continue
            size = len(seen.occurrences)
            if max(seen.occurrences) != size:
                return next(o for o in range(1, size + 1) if o not in seen.occurrences)
        return None


class LineKeys(Protocol):
    """What the chain links ask of their key memory: `add` each line (or ask `seen`), `finish`."""

    ambiguous: int | None

    def add(self, parsed: ParsedLine, offset: int) -> int | None:
        """Remember a validated line; DUPLICATE_CALL_KEY / DUPLICATE_OCCURRENCE, or None."""
        ...

    def seen(self, record: Any) -> int | None:
        """Which FMT-16 rule a checked record would break if added (None: none); no change."""
        ...

    def finish(self) -> int | None:
        """FMT-17's missing occurrence, or None; sets `ambiguous` when it counts it."""
        ...
