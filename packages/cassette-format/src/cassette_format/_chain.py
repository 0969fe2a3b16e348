"""FMT-15..17: the per-line chain state shared by `parse_cassette` and the streaming verifier.

Each line is parsed (FMT-4/5), checked (FMT-9 for line 1, FMT-10 after) and linked
(FMT-15/16); the first problem comes back as a value (`feed`, `finish`), never raised.

It keeps only what the loader checks need (FMT-15..17): the previous hash, the sequences
seen (a bitmap), a digest of each call key, and per parent-context/request group (keyed by
a digest) the occurrences seen plus where each member's line starts (so outcomes are
canonicalized later only for groups that actually repeat). Records are kept only when the
caller asks for them.
"""

from __future__ import annotations

import hashlib
from array import array
from typing import TYPE_CHECKING, Any

from cassette_format._fast_schema import header_fits, interaction_fits
from cassette_format._record_line import ParsedLine, parse_record, record_hash
from cassette_format._sequences import SeenSequences
from cassette_format.errors import CassetteFormatError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cassette_canonical import JsonValue

    from cassette_format._ranges import RangeFacts
    from cassette_format.records import CassetteHeader, CassetteInteraction

__all__ = ["KEY_BYTES", "ChainState", "Tally"]

_LOSSY = "cassette record is not lossless canonical JSON"
_OCCURRENCE_BITS = 54
_OCCURRENCE_MASK = (1 << _OCCURRENCE_BITS) - 1


class _Group:
    """A group seen more than once: its occurrences and each member's line offset."""

    __slots__ = ("occurrences", "offsets")

    def __init__(self, occurrences: set[int], offsets: list[int]) -> None:
        self.occurrences = occurrences
        self.offsets = offsets


class Tally:
    """Summary counters of FMT-21, updated per interaction."""

    __slots__ = ("aborted", "completed", "duration_ms", "failed", "interactions", "redacted")

    def __init__(self) -> None:
        self.interactions = 0
        self.completed = 0
        self.failed = 0
        self.aborted = 0
        self.redacted = 0
        self.duration_ms: int | float = 0

    def count(self, record: Any) -> None:
        """Add one interaction `check_interaction` accepted (so its members are as indexed)."""
        self.interactions += 1
        duration = record["timing"]["durationMs"]
        self.duration_ms = max(self.duration_ms, duration)
        outcome = record["outcome"]
        if outcome["kind"] != "result":
            self.failed += 1
            return
        if outcome["redactions"] > 0:
            self.redacted += 1
        stop = outcome["result"]["stopReason"]
        if stop == "completed":
            self.completed += 1
        elif stop == "aborted":
            self.aborted += 1
        else:
            self.failed += 1

    def as_list(self) -> list[int | float]:
        """The counters in a fixed order, for another process."""
        return [
            self.interactions,
            self.completed,
            self.failed,
            self.aborted,
            self.redacted,
            self.duration_ms,
        ]

    def add(self, counters: list[int | float]) -> None:
        """Add another range's `as_list` counters."""
        interactions, completed, failed, aborted, redacted, duration_ms = counters
        self.interactions += int(interactions)
        self.completed += int(completed)
        self.failed += int(failed)
        self.aborted += int(aborted)
        self.redacted += int(redacted)
        self.duration_ms = max(self.duration_ms, duration_ms)


def _as_int(value: int | float) -> int:
    """A validated safe integer (an int, or an integral float such as `2.0`)."""
    return value if type(value) is int else int(value)


# Call keys and groups are remembered by 128-bit BLAKE2b digests, not by their text: about
# half the memory of a call key string, and a false "duplicate" needs a 128-bit collision.
KEY_BYTES = 16


def _call_key_digest(call_key: str) -> bytes:
    """A fixed-size identity of one call key."""
    encoded = call_key.encode("utf-8", "surrogatepass")
    return hashlib.blake2b(encoded, digest_size=KEY_BYTES).digest()


def _group_key(parent_key: str, parent_context: str, request: str) -> bytes:
    """A fixed-size identity of one parent-context/request group."""
    joined = f"{parent_key}\0{parent_context}\0{request}"
    return hashlib.blake2b(joined.encode("utf-8", "surrogatepass"), digest_size=KEY_BYTES).digest()


class ChainState:
    """Feed numbered non-blank lines in file order; `finish` runs the contiguity checks.

    A state can also verify a range that starts mid-file (`resume_mid_file`): its first
    link is taken on trust and reported in `facts()`, for the state that read the lines
    before it to check in `absorb()`.
    """

    def __init__(self, *, keep_records: bool) -> None:
        self.keep_records = keep_records
        self.header_record: Mapping[str, JsonValue] | None = None
        self._header: CassetteHeader | None = None
        self.interactions: list[CassetteInteraction] = []
        self.tally = Tally()
        self.first_previous_hash: str | None = None
        self._storage = ""
        self._previous_hash: str | None = ""
        self._sequences = SeenSequences()
        self._call_keys: set[bytes] = set()
        self._groups: dict[bytes, int | _Group] = {}

    @property
    def header(self) -> CassetteHeader | None:
        """The typed header once line 1 verified (built on first use: verify needs none)."""
        if self._header is None and self.header_record is not None:
            from cassette_format.build import decode_header  # lazy: keeps verify lean

            self._header = decode_header(self.header_record).value_or(None)
        return self._header

    def resume_mid_file(self) -> None:
        """After the header: the next interaction need not follow the header's hash."""
        self._previous_hash = None

    def feed(
        self, number: int, raw: bytes | None, text: str | None, offset: int
    ) -> CassetteFormatError | None:
        """Verify one line: None, or its problem with the reference's message."""
        parsed = parse_record(raw, text, number)
        if isinstance(parsed, CassetteFormatError):
            return parsed
        if self.header_record is None:
            return self._feed_header(parsed)
        return self._feed_interaction(parsed, number, offset)

    def _feed_header(self, parsed: ParsedLine) -> CassetteFormatError | None:
        value = parsed.value
        if not header_fits(value):
            from cassette_format.header_rules import check_header  # lazy: on doubt only

            problem = check_header(value).swap().value_or(None)
            if problem is not None:
                return problem
        header: Any = value  # accepted by FMT-9 rules 1-17
        computed = record_hash(parsed, header)
        if computed is None:
            return CassetteFormatError(_LOSSY, line=1)
        if computed != header["hash"]:
            return CassetteFormatError("header hash mismatch", line=1)
        self.header_record = header
        self._storage = str(header["requestStorage"])
        self._previous_hash = str(header["hash"])
        return None

    def _feed_interaction(
        self, parsed: ParsedLine, number: int, offset: int
    ) -> CassetteFormatError | None:
        value = parsed.value
        previous = self._previous_hash
        if previous is None:
            claimed = value.get("previousHash") if isinstance(value, dict) else None
            previous = self.first_previous_hash = claimed if isinstance(claimed, str) else ""
        if not interaction_fits(value, previous):
            from cassette_format.interaction_rules import check_interaction_in_order  # on doubt

            problem = check_interaction_in_order(value, number, previous).swap().value_or(None)
            if problem is not None:
                return problem
        # Accepted by FMT-10 rules 1-9, so every member indexed below exists as validated.
        record: Any = value
        computed = record_hash(parsed, record)  # FMT-10 rule 10
        if computed is None:
            return CassetteFormatError(_LOSSY)
        if computed != record["hash"]:
            return CassetteFormatError(f"line {number} hash mismatch", line=number)
        if record["request"]["storage"] != self._storage:
            return CassetteFormatError(
                f'line {number}.request.storage must match header.requestStorage "{self._storage}"',
                line=number,
            )
        sequence = _as_int(record["sequence"])
        if sequence in self._sequences:
            return CassetteFormatError(f"line {number} duplicates sequence {sequence}", line=number)
        call_key: str = record["callKey"]
        call_key_digest = _call_key_digest(call_key)
        if call_key_digest in self._call_keys:
            return CassetteFormatError(
                f'line {number} duplicates call key "{call_key}"', line=number
            )
        self._sequences.add(sequence)
        self._call_keys.add(call_key_digest)
        occurrence = _as_int(record["occurrence"])
        group_key = _group_key(
            record["parentKey"], record["parentContextFingerprint"], record["requestFingerprint"]
        )
        seen = self._groups.get(group_key)
        if seen is None:
            self._groups[group_key] = ((offset + 1) << _OCCURRENCE_BITS) | occurrence
        else:
            if isinstance(seen, int):
                seen = _Group({seen & _OCCURRENCE_MASK}, [(seen >> _OCCURRENCE_BITS) - 1])
                self._groups[group_key] = seen
            if occurrence in seen.occurrences:
                return CassetteFormatError(
                    f"line {number} duplicates occurrence {occurrence} "
                    "for one parent-context/request group",
                    line=number,
                )
            seen.occurrences.add(occurrence)
            seen.offsets.append(offset)
        if self.keep_records:
            from cassette_format.build import decode_interaction  # lazy, as above

            decoded = decode_interaction(record)
            interaction = decoded.value_or(None)
            if interaction is None:
                return decoded.swap().value_or(None)
            self.interactions.append(interaction)
        self.tally.count(record)
        self._previous_hash = record["hash"]
        return None

    def finish(self) -> CassetteFormatError | None:
        """FMT-17 contiguity of sequences and of each group's occurrences; empty file check."""
        if self.header_record is None:
            return CassetteFormatError("cassette is empty")
        missing = self._sequences.first_missing()
        if missing is not None:
            return CassetteFormatError(f"cassette is missing sequence {missing}")
        for seen in self._groups.values():
            if isinstance(seen, int):
                if seen & _OCCURRENCE_MASK != 1:
                    return CassetteFormatError(
                        "cassette parent-context/request group is missing occurrence 1"
                    )
                continue
            size = len(seen.occurrences)
            if max(seen.occurrences) != size:
                missing = next(o for o in range(1, size + 1) if o not in seen.occurrences)
                return CassetteFormatError(
                    f"cassette parent-context/request group is missing occurrence {missing}"
                )
        return None

    def repeated_group_offsets(self) -> list[list[int]]:
        """Line offsets of each group with two or more members, groups in first-seen order."""
        return [seen.offsets for seen in self._groups.values() if isinstance(seen, _Group)]

    def facts(self) -> RangeFacts:
        """What `absorb` needs of this range: its chain ends, keys, groups and counters."""
        from cassette_format._ranges import GroupFacts, RangeFacts  # lazy: split verify only

        bitmap, outliers, count, highest = self._sequences.parts()
        keys: list[bytes] = []
        occurrences = array("Q")
        offsets = array("Q")
        repeated: list[GroupFacts] = []
        for key, seen in self._groups.items():
            if isinstance(seen, int):
                keys.append(key)
                occurrences.append(seen & _OCCURRENCE_MASK)
                offsets.append((seen >> _OCCURRENCE_BITS) - 1)
            else:
                repeated.append(GroupFacts(key, sorted(seen.occurrences), list(seen.offsets)))
        return RangeFacts(
            first_previous_hash=self.first_previous_hash,
            last_hash=self._previous_hash if self.tally.interactions else None,
            sequence_bitmap=bitmap,
            sequence_outliers=outliers,
            sequence_count=count,
            sequence_highest=highest,
            call_keys=b"".join(self._call_keys),
            single_keys=b"".join(keys),
            single_occurrences=occurrences,
            single_offsets=offsets,
            repeated=repeated,
            tally=self.tally.as_list(),
        )

    def absorb(self, facts: RangeFacts) -> bool:
        """Append the range after this one; False if any cross-range rule might fail.

        False never names an error: the caller re-verifies the whole file in order, which
        finds the reference's first failure.
        """
        if facts.last_hash is None:
            return facts.tally[0] == 0
        if facts.first_previous_hash != self._previous_hash:
            return False
        if not self._sequences.absorb(
            facts.sequence_bitmap,
            facts.sequence_outliers,
            facts.sequence_count,
            facts.sequence_highest,
        ):
            return False
        call_keys = self._call_keys
        for call_key in facts.call_key_digests():
            if call_key in call_keys:
                return False
            call_keys.add(call_key)
        for key, occurrence, offset in facts.singles():
            if not self._join_group(key, [occurrence], [offset]):
                return False
        for group in facts.repeated:
            if not self._join_group(group.key, group.occurrences, group.offsets):
                return False
        self.tally.add(facts.tally)
        self._previous_hash = facts.last_hash
        return True

    def _join_group(self, key: bytes, occurrences: list[int], offsets: list[int]) -> bool:
        seen = self._groups.get(key)
        if seen is None and len(occurrences) == 1:
            self._groups[key] = ((offsets[0] + 1) << _OCCURRENCE_BITS) | occurrences[0]
            return True
        if seen is None:
            self._groups[key] = _Group(set(occurrences), list(offsets))
            return True
        if isinstance(seen, int):
            seen = _Group({seen & _OCCURRENCE_MASK}, [(seen >> _OCCURRENCE_BITS) - 1])
            self._groups[key] = seen
        if not seen.occurrences.isdisjoint(occurrences):
            return False
        seen.occurrences.update(occurrences)
        seen.offsets.extend(offsets)
        return True
