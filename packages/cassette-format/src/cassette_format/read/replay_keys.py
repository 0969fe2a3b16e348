"""FMT-16, 17, 19 for replay: the chain pass's key checks, keeping what replay needs to match.

`ReplayKeys` is the `LineKeys` of the lazy reader (`replay_index`). Like verify's
`CompactKeys` it holds no record, only compact tables; unlike them it keeps every
interaction's facts that replay matches on, exactly: call keys, parent keys and parent
contexts interned in `KeyTable`s, request fingerprints as their 32 digest bytes, sequence,
occurrence, label, the line's offset and hash, and the longest recorded
delay, in parallel arrays indexed by position in the file. Groups are found through an
open-addressing table of their first-seen member, confirmed against those arrays, so
duplicate checks need no line read back. A group that repeats reads its first member's line once
to compare outcome digests (FMT-19): no other outcome is kept or decoded.
"""

from __future__ import annotations

import hashlib
from array import array
from itertools import pairwise
from typing import TYPE_CHECKING, Any, Final

from cassette_format.read.key_table import KeyTable
from cassette_format.read.line_keys import safe_int
from cassette_format.read.lines import expected_lines
from cassette_format.read.outcome_text import outcome_text
from cassette_format.records.declare import fixed, wires
from cassette_format.records.identity import (
    CALL_KEY,
    OCCURRENCE,
    PARENT_CONTEXT_FINGERPRINT,
    PARENT_KEY,
    REQUEST_FINGERPRINT,
)
from cassette_format.records.model import (
    HASH,
    OUTCOME_KIND,
    STORAGE,
    FullRequestView,
    InteractionBody,
    MetadataRequestView,
    RequestMetadata,
    ResultOutcome,
    Timing,
)
from cassette_format.rules.chain import DUPLICATE_CALL_KEY, DUPLICATE_OCCURRENCE

if TYPE_CHECKING:
    from cassette_format.read.record_line import ParsedLine
    from cassette_format.read.reread import LineReader

__all__ = ["DIGEST_BYTES", "ReplayKeys", "digest_bytes", "digest_text"]

#: A `sha256:<64 hex>` digest (FMT-10 validates the shape) as its raw bytes.
DIGEST_BYTES: Final = 32
_DIGEST_PREFIX: Final = "sha256:"
_INITIAL_GROUP_SLOTS: Final = 1 << 6
#: Parent keys kept in the parents table's dict too (about 150 bytes each, at most ~2.5 MB).
_PARENT_FRONT_KEYS: Final = 1 << 14
_HEX_START: Final = len(_DIGEST_PREFIX)
# The members read per line, by their declarations (records.model).
_INTERACTION = wires(InteractionBody)
_SEQUENCE, _TIMING, _REQUEST, _OUTCOME = (
    _INTERACTION.sequence,
    _INTERACTION.timing,
    _INTERACTION.request,
    _INTERACTION.outcome,
)
_METADATA_STORAGE, _METADATA = (
    fixed(MetadataRequestView).storage,
    wires(MetadataRequestView).metadata,
)
_VALUE = wires(FullRequestView).value
_LABEL = wires(RequestMetadata).label
_DURATION = wires(Timing).duration_ms
_RESULT_KIND, _REDACTIONS = fixed(ResultOutcome).kind, wires(ResultOutcome).redactions


def digest_bytes(digest: str) -> bytes:
    """The 32 raw bytes of a validated `sha256:<64 lowercase hex>` digest."""
    return bytes.fromhex(digest[len(_DIGEST_PREFIX) :])


def digest_text(raw: bytes | bytearray) -> str:
    """The `sha256:<hex>` text of 32 raw digest bytes."""
    return _DIGEST_PREFIX + raw.hex()


def _never_same(_: int) -> bool:
    """The caller already looked for the group: no candidate is the same."""
    return False


class ReplayKeys:
    """The replay facts of each verified interaction, found by call key or by exact group."""

    __slots__ = (
        "_ambiguous",
        "_group_hash_mask",
        "_group_mask",
        "_group_slots",
        "_odd_starts",
        "_outcomes",
        "_reader",
        "_repeats",
        "ambiguous",
        "calls",
        "context_ids",
        "contexts",
        "delays",
        "first_redacted",
        "hashes",
        "heads",
        "label_ids",
        "labels",
        "next_member",
        "occurrences",
        "offsets",
        "parent_calls",
        "parent_ids",
        "parents",
        "requests",
        "sequences",
    )

    def __init__(self, reader: LineReader, tag_bits: int | None = None) -> None:
        """`tag_bits` narrows every table's hash tags (tests force collisions with it)."""
        self._reader = reader
        self.offsets = array("Q")
        self.sequences = array("q")
        self.occurrences = array("q")
        self.delays = array("d")
        # id == position: call keys are unique (FMT-16), so none is looked up while adding.
        self.calls = KeyTable(tag_bits, front_keys=0)
        # A parent key comes back once per child call: the first ones by dict.
        self.parents = KeyTable(tag_bits, front_keys=_PARENT_FRONT_KEYS)
        self.parent_ids = array("i")
        self.contexts = KeyTable(tag_bits)
        self.context_ids = array("i")
        self.labels = KeyTable(tag_bits)
        self.label_ids = array("i")
        self.requests = bytearray()  # DIGEST_BYTES per interaction
        self.hashes = bytearray()  # DIGEST_BYTES per interaction: the line's own hash
        self.first_redacted = -1
        self._group_slots = array("i", bytes(4 * _INITIAL_GROUP_SLOTS))  # first seen + 1
        self._group_mask = _INITIAL_GROUP_SLOTS - 1
        self._group_hash_mask = -1 if tag_bits is None else (1 << tag_bits) - 1
        self._odd_starts: list[int] = []  # first-seen members whose occurrence is not 1
        self._repeats: dict[int, dict[int, int]] = {}  # first seen -> occurrence -> position
        self._outcomes: dict[int, bytes] = {}  # first seen -> its outcome's digest
        self._ambiguous: set[int] = set()
        self.heads: dict[int, int] = {}  # first seen -> occurrence 1, where they differ
        self.next_member: dict[int, int] = {}  # position -> the next occurrence's
        self.parent_calls = array("l")  # parent id -> position of that call, or -1
        self.ambiguous: int | None = None

    def _group_slot(self, parent_id: int, context_id: int, request: bytes) -> int:
        """The slot of the exact group's first-seen member, or the empty slot for it."""
        slots, mask = self._group_slots, self._group_mask
        parents, contexts, requests = self.parent_ids, self.context_ids, self.requests
        index = hash((parent_id, context_id, request)) & self._group_hash_mask & mask
        while True:
            found = slots[index] - 1
            if found < 0:
                return index
            start = found * DIGEST_BYTES
            if (
                parents[found] == parent_id
                and contexts[found] == context_id
                and requests[start : start + DIGEST_BYTES] == request
            ):
                return index
            index = (index + 1) & mask

    def find_group(self, parent_id: int, context_id: int, request: bytes) -> int:
        """The first-seen member of the exact group, or -1."""
        return self._group_slots[self._group_slot(parent_id, context_id, request)] - 1

    def _reserve(self, line: bytes, offset: int) -> None:
        """Size the call key and group tables once, for as many lines as the first suggests."""
        expected = expected_lines(self._reader.size, offset, line)
        self.calls.reserve(expected)
        size = len(self._group_slots)
        while 3 * expected > 2 * size:
            size *= 2
        if size > len(self._group_slots):
            self._grow_groups(size)

    def _grow_groups(self, size: int) -> None:
        """Resize the group table to `size` slots, placing each first-seen member again."""
        slots = array("i", bytes(4 * size))
        mask, narrowed = size - 1, self._group_hash_mask
        parents, contexts, requests = self.parent_ids, self.context_ids, self.requests
        for found in self._group_slots:
            if not found:
                continue
            start = (found - 1) * DIGEST_BYTES
            request = bytes(requests[start : start + DIGEST_BYTES])
            index = hash((parents[found - 1], contexts[found - 1], request)) & narrowed & mask
            while slots[index]:
                index = (index + 1) & mask
            slots[index] = found
        self._group_slots, self._group_mask = slots, mask

    def seen(self, record: Any) -> int | None:
        """Which FMT-16 rule a checked record would break if added (None: none); no change."""
        if self.calls.find(record[CALL_KEY]) >= 0:
            return DUPLICATE_CALL_KEY
        parent_id = self.parents.find(record[PARENT_KEY])
        context_id = self.contexts.find(record[PARENT_CONTEXT_FINGERPRINT])
        if parent_id < 0 or context_id < 0:
            return None
        first = self.find_group(parent_id, context_id, digest_bytes(record[REQUEST_FINGERPRINT]))
        if first < 0:
            return None
        occurrence = safe_int(record[OCCURRENCE])
        members = self._repeats.get(first, {self.occurrences[first]: first})
        return DUPLICATE_OCCURRENCE if occurrence in members else None

    def add(self, parsed: ParsedLine, offset: int) -> int | None:
        """Remember a validated line; DUPLICATE_CALL_KEY / DUPLICATE_OCCURRENCE, or None."""
        # One of these per line of a 100,000-line file: locals and inline steps on purpose.
        record: Any = parsed.value
        offsets = self.offsets
        position = len(offsets)
        if not position and parsed.canonical:
            self._reserve(parsed.canonical, offset)
        if self.calls.add(record[CALL_KEY]) != position:
            return DUPLICATE_CALL_KEY
        occurrence = record[OCCURRENCE]
        if type(occurrence) is not int:
            occurrence = safe_int(occurrence)
        parent_id = self.parents.add(record[PARENT_KEY])
        context_id = self.contexts.add(record[PARENT_CONTEXT_FINGERPRINT])
        request = bytes.fromhex(record[REQUEST_FINGERPRINT][_HEX_START:])
        # `_group_slot`, inline: the exact group's first-seen member, or the empty slot for it.
        slots, mask = self._group_slots, self._group_mask
        parents, contexts, requests = self.parent_ids, self.context_ids, self.requests
        index = hash((parent_id, context_id, request)) & self._group_hash_mask & mask
        first = slots[index] - 1
        while first >= 0:
            start = first * DIGEST_BYTES
            if (
                parents[first] == parent_id
                and contexts[first] == context_id
                and requests[start : start + DIGEST_BYTES] == request
            ):
                break
            index = (index + 1) & mask
            first = slots[index] - 1
        if first >= 0:
            members = self._repeats.get(first)
            if members is None:
                members = self._repeats[first] = {self.occurrences[first]: first}
            if occurrence in members:
                return DUPLICATE_OCCURRENCE
            members[occurrence] = position
            self._compare_outcome(first, parsed)
        else:
            slots[index] = position + 1
            if occurrence != 1:
                self._odd_starts.append(position)
        sequence = record[_SEQUENCE]
        view = record[_REQUEST]
        label = (view[_METADATA] if view[STORAGE] == _METADATA_STORAGE else view[_VALUE]).get(
            _LABEL
        )
        offsets.append(offset)
        self.sequences.append(sequence if type(sequence) is int else safe_int(sequence))
        self.occurrences.append(occurrence)
        # FMT-12: the duration is never shorter than the start latency, so it is the longer.
        self.delays.append(record[_TIMING][_DURATION])
        parents.append(parent_id)
        contexts.append(context_id)
        self.label_ids.append(self.labels.add(label) if type(label) is str else -1)
        requests += request
        self.hashes += bytes.fromhex(record[HASH][_HEX_START:])
        if first < 0 and 3 * (position + 1) > 2 * len(slots):
            self._grow_groups(2 * len(slots))
        if self.first_redacted < 0:
            outcome = record[_OUTCOME]
            if outcome[OUTCOME_KIND] == _RESULT_KIND and outcome[_REDACTIONS] > 0:
                self.first_redacted = position
        return None

    def _compare_outcome(self, first: int, parsed: ParsedLine) -> None:
        """FMT-19: a repeated group is ambiguous when an outcome differs from its first's."""
        anchor = self._outcomes.get(first)
        if anchor is None:
            found = self._reader.parsed_at(self.offsets[first])
            # A line that no longer parses changed during the pass: count it as different.
            anchor = b"" if found is None else hashlib.sha256(outcome_text(found)).digest()
            self._outcomes[first] = anchor
        if hashlib.sha256(outcome_text(parsed)).digest() != anchor:
            self._ambiguous.add(first)

    def finish(self) -> int | None:
        """FMT-17's missing occurrence of the first-seen group lacking one, or None.

        Also counts ambiguous groups (FMT-19), links each repeated group's members in
        occurrence order and resolves parent keys to the calls they name.
        """
        self.ambiguous = len(self._ambiguous)
        repeats = self._repeats
        for position in sorted({*self._odd_starts, *repeats}):  # groups in first-seen order
            members = repeats.get(position)
            if members is None:
                return 1  # a group of one whose occurrence is not 1
            size = len(members)
            if max(members) != size:
                return next(o for o in range(1, size + 1) if o not in members)
        for first, members in repeats.items():
            ordered = [members[occurrence] for occurrence in range(1, len(members) + 1)]
            if ordered[0] != first:
                self.heads[first] = ordered[0]
            for before, after in pairwise(ordered):
                self.next_member[before] = after
        self._repeats, self._outcomes, self._odd_starts = {}, {}, []
        calls, parents = self.calls, self.parents
        self.parent_calls = array("l", (calls.find(parents.text(i)) for i in range(len(parents))))
        return None
