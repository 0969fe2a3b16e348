"""What one verified range of a cassette hands to the range before it, and its wire form.

A helper process verifies the second half of a large file and writes these facts to its
stdout: one JSON line (chain ends, call keys, counters, repeated groups, array sizes)
followed by raw arrays (sequence bitmap, group digests, occurrences, offsets). Anything
unexpected on the wire decodes to None, and the caller then verifies the file in order.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import orjson

from cassette_format._chain import KEY_BYTES

__all__ = ["GroupFacts", "RangeFacts", "decode_facts", "write_facts"]


@dataclass(frozen=True, slots=True)
class GroupFacts:
    """A parent-context/request group with several members in the range."""

    key: bytes
    occurrences: list[int]
    offsets: list[int]


@dataclass(frozen=True, slots=True)
class RangeFacts:
    """A range's chain ends, distinct keys, groups and summary counters."""

    first_previous_hash: str | None
    last_hash: str | None
    sequence_bitmap: bytes
    sequence_outliers: list[int]
    sequence_count: int
    sequence_highest: int
    call_keys: bytes  # one KEY_BYTES digest per call key in the range
    single_keys: bytes  # one KEY_BYTES group key per group with one member in the range
    single_occurrences: array[int]  # that member's occurrence, group by group
    single_offsets: array[int]  # and the byte offset of its line
    repeated: list[GroupFacts]
    tally: list[int | float]

    def call_key_digests(self) -> Iterator[bytes]:
        """Each call key's digest."""
        keys = self.call_keys
        for start in range(0, len(keys), KEY_BYTES):
            yield keys[start : start + KEY_BYTES]

    def singles(self) -> Iterator[tuple[bytes, int, int]]:
        """(group key, occurrence, line offset) of each single-member group."""
        keys = self.single_keys
        for index, (occurrence, offset) in enumerate(
            zip(self.single_occurrences, self.single_offsets, strict=True)
        ):
            start = index * KEY_BYTES
            yield keys[start : start + KEY_BYTES], occurrence, offset


def write_facts(facts: RangeFacts, out: IO[bytes]) -> None:
    """Write the wire form; raises orjson.JSONEncodeError for text JSON cannot carry."""
    head = {
        "first": facts.first_previous_hash,
        "last": facts.last_hash,
        "outliers": facts.sequence_outliers,
        "count": facts.sequence_count,
        "highest": facts.sequence_highest,
        "callKeyBytes": len(facts.call_keys),
        "repeated": [[g.key.hex(), g.occurrences, g.offsets] for g in facts.repeated],
        "tally": facts.tally,
        "bitmapBytes": len(facts.sequence_bitmap),
        "singles": len(facts.single_occurrences),
    }
    out.write(orjson.dumps(head, option=orjson.OPT_APPEND_NEWLINE))
    out.write(facts.sequence_bitmap)
    out.write(facts.call_keys)
    out.write(facts.single_keys)
    out.write(facts.single_occurrences.tobytes())
    out.write(facts.single_offsets.tobytes())


def _exactly(stream: IO[bytes], size: int) -> bytes | None:
    data = stream.read(size)
    return data if len(data) == size else None


def decode_facts(stream: IO[bytes]) -> RangeFacts | None:
    """Read `encode_facts` output; None for anything else (a crashed or foreign helper)."""
    try:
        head = orjson.loads(stream.readline())
        singles = int(head["singles"])
        bitmap = _exactly(stream, int(head["bitmapBytes"]))
        call_keys = _exactly(stream, int(head["callKeyBytes"]))
        keys = _exactly(stream, singles * KEY_BYTES)
        occurrence_bytes = _exactly(stream, singles * 8)
        offset_bytes = _exactly(stream, singles * 8)
        if (
            bitmap is None
            or call_keys is None
            or keys is None
            or occurrence_bytes is None
            or offset_bytes is None
            or len(call_keys) % KEY_BYTES
        ):
            return None
        if stream.read(1):
            return None
        occurrences = array("Q", occurrence_bytes)
        offsets = array("Q", offset_bytes)
        return RangeFacts(
            first_previous_hash=head["first"],
            last_hash=head["last"],
            sequence_bitmap=bitmap,
            sequence_outliers=[int(s) for s in head["outliers"]],
            sequence_count=int(head["count"]),
            sequence_highest=int(head["highest"]),
            call_keys=call_keys,
            single_keys=keys,
            single_occurrences=occurrences,
            single_offsets=offsets,
            repeated=[
                GroupFacts(bytes.fromhex(key), [int(o) for o in occ], [int(o) for o in off])
                for key, occ, off in head["repeated"]
            ],
            tally=list(head["tally"]),
        )
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError, OverflowError):
        return None
