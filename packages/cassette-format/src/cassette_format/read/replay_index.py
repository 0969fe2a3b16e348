"""The lazy reader replay installs from: one verifying pass, then lines read when delivered.

`read_replay_index` runs the loader's chain checks (`_chain.ChainState`, FMT-1..19) over
the file in one streaming pass with verify's memory profile, keeping no record: only the
header and, per interaction, the compact facts `_replay_keys.ReplayKeys` collects (call
key, parent key, group, occurrence, sequence, label, the line's offset, length and hash,
the longest recorded delay), plus the FMT-19 ambiguity count and the first redacted result.
A file the loader refuses is refused with the loader's error.

`ReplayIndex.interaction` reads one line back (`os.pread` on the descriptor the pass used)
and verifies it again before decoding it, through a chain state resumed at that line: bytes
changed after the pass fail closed with the loader's code and message (a changed body is
`line N hash mismatch`; a re-hashed line breaks the next line's `previousHash`).
"""

from __future__ import annotations

import os
import weakref
from typing import IO, TYPE_CHECKING, Final

import orjson
from cassette_canonical import is_digest
from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.read.chain import ChainState
from cassette_format.read.lines import MAX_LINE_BYTES, numbered_lines, strip_newline
from cassette_format.read.open import open_regular
from cassette_format.read.record_line import line_hash, parse_record, record_hash
from cassette_format.read.replay_keys import DIGEST_BYTES, ReplayKeys, digest_bytes, digest_text
from cassette_format.read.reread import LineReader
from cassette_format.read.tail_seal import run_sealed
from cassette_format.records.decode import decode_interaction
from cassette_format.records.model import HASH

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cassette_canonical import JsonValue

    from cassette_format.records.identity import GroupKey
    from cassette_format.records.model import CassetteHeader, CassetteInteraction

__all__ = ["ReplayIndex", "read_replay_index"]

_CHANGED: Final = "line {line} changed after the cassette was read; install the replay again"
#: Every ASCII digit made NUL (no other byte is), so a run of digits is found by `bytes.find`.
_DIGITS_AS_NUL: Final = bytes.maketrans(b"0123456789", b"\0" * 10)
#: 16 digits: the shortest integer past 2^53 (9007199254740993) has 16.
_SIXTEEN_DIGITS: Final = b"\0" * 16


def _cannot_read(path: str, error: OSError) -> FormatProblem:
    """FMT-18's message for a file that cannot be read."""
    return FormatProblem(f'cannot read cassette "{path}"', cause=error)


class ReplayIndex:
    """A verified cassette's header and call index; an interaction is read when asked for.

    Positions are file order (0 is the first interaction). Lookups answer -1 for nothing.
    """

    __slots__ = ("__weakref__", "_descriptor", "_header_record", "_keys", "header", "path")

    def __init__(
        self,
        path: str,
        descriptor: int,
        header: CassetteHeader,
        header_record: Mapping[str, JsonValue],
        keys: ReplayKeys,
    ) -> None:
        self.path = path
        self.header = header
        self._header_record = header_record
        self._keys = keys
        self._descriptor = descriptor
        weakref.finalize(self, os.close, descriptor)

    def __len__(self) -> int:
        return len(self._keys.offsets)

    @property
    def ambiguous_groups(self) -> int:
        """How many repeated groups hold more than one distinct outcome (FMT-19)."""
        return self._keys.ambiguous or 0

    @property
    def first_redacted(self) -> int:
        """The first interaction whose result was stored with redactions (MATCH-1), or -1."""
        return self._keys.first_redacted

    @property
    def delivers_copies(self) -> bool:
        """True: `interaction` decodes the line it reads, so each record is new to its caller."""
        return True

    def call_key(self, position: int) -> str:
        """The interaction's call key."""
        return self._keys.calls.text(position)

    def parent_key(self, position: int) -> str:
        """The interaction's parent key."""
        keys = self._keys
        return keys.parents.text(keys.parent_ids[position])

    def group(self, position: int) -> GroupKey:
        """The interaction's parent-context/request group (FMT-16)."""
        keys = self._keys
        start = position * DIGEST_BYTES
        return (
            keys.parents.text(keys.parent_ids[position]),
            keys.contexts.text(keys.context_ids[position]),
            digest_text(keys.requests[start : start + DIGEST_BYTES]),
        )

    def sequence(self, position: int) -> int:
        """The interaction's sequence."""
        return self._keys.sequences[position]

    def occurrence(self, position: int) -> int:
        """The interaction's occurrence within its group."""
        return self._keys.occurrences[position]

    def label(self, position: int) -> str | None:
        """The stored request's label, if it has one."""
        keys = self._keys
        label_id = keys.label_ids[position]
        return None if label_id < 0 else keys.labels.text(label_id)

    def longest_delay(self, position: int) -> float:
        """The longer of the recorded start latency and duration, in ms (REPLAY-2)."""
        return self._keys.delays[position]

    def find_call(self, call_key: str) -> int:
        """The interaction with this call key."""
        return self._keys.calls.find(call_key)

    def parent_position(self, position: int) -> int:
        """The interaction whose call key is this one's parent key."""
        keys = self._keys
        return keys.parent_calls[keys.parent_ids[position]]

    def find_group(self, group: GroupKey) -> int:
        """The first occurrence of the exact group (MATCH-1)."""
        keys = self._keys
        parent_key, context, request = group
        parent_id = keys.parents.find(parent_key)
        context_id = keys.contexts.find(context)
        if parent_id < 0 or context_id < 0 or not is_digest(request):
            return -1
        first = keys.find_group(parent_id, context_id, digest_bytes(request))
        return first if first < 0 else keys.heads.get(first, first)

    def next_in_group(self, position: int) -> int:
        """The next occurrence of this interaction's group."""
        return self._keys.next_member.get(position, -1)

    def interaction(self, position: int) -> Result[CassetteInteraction, FormatProblem]:
        """The interaction read back, verified again as the loader would, and decoded.

        A line that is still the very bytes the pass verified is decoded at once
        (`_unchanged_record`); so is one whose record still hashes to the hash stored by the
        pass, which is the very record the pass verified (its hash covers every member,
        `previousHash` included). Any other line goes through the loader's checks for their
        message.
        """
        try:
            raw = self._raw(position)
        except OSError as error:
            return Failure(_cannot_read(self.path, error))
        stored = digest_text(self._stored_hash(position))
        record = _unchanged_record(raw, stored)
        if record is None:
            record = _same_record(raw, stored, position + 2)
        if record is not None:
            return decode_interaction(record)
        return self._refusal(position, raw)

    def _refusal(self, position: int, raw: bytes) -> Result[CassetteInteraction, FormatProblem]:
        """Why a line changed since the pass, in the loader's words (or it was rewritten)."""
        keys = self._keys
        line = position + 2
        state = ChainState.resumed(self._header_record, self._previous_hash(position))
        try:
            problem = state.feed(line, raw, None, keys.offsets[position])
            if problem is None and position + 1 < len(keys.offsets):
                after = position + 1  # re-hashed: the next line's link breaks
                problem = state.feed(line + 1, self._raw(after), None, keys.offsets[after])
        except OSError as error:
            return Failure(_cannot_read(self.path, error))
        return Failure(problem or FormatProblem(_CHANGED.format(line=line), line=line))

    def _raw(self, position: int) -> bytes:
        """The line's bytes: up to the next line's offset (or the end), cut at its newline."""
        offsets, descriptor = self._keys.offsets, self._descriptor
        start = offsets[position]
        following = position + 1
        stop = offsets[following] if following < len(offsets) else os.fstat(descriptor).st_size
        chunk = os.pread(descriptor, max(0, min(stop - start, MAX_LINE_BYTES + 2)), start)
        end = chunk.find(b"\n")
        return strip_newline(chunk if end < 0 else chunk[: end + 1])

    def _stored_hash(self, position: int) -> bytes:
        start = position * DIGEST_BYTES
        return bytes(self._keys.hashes[start : start + DIGEST_BYTES])

    def _previous_hash(self, position: int) -> str:
        if position == 0:
            return str(self._header_record[HASH])
        return digest_text(self._stored_hash(position - 1))


def _unchanged_record(raw: bytes, stored: str) -> Mapping[str, JsonValue] | None:
    """The line's record when its bytes are those the pass verified (hash `stored`), else None.

    The pass stored the SHA-256 of the record's canonical text without `hash`. A line whose
    text, with its `"hash":"<stored>"` member cut out byte-wise, hashes to `stored` is that
    canonical text with the member put back: a member moved into a nested object leaves
    none at the top, and one put anywhere else breaks the JSON. orjson reads canonical
    text as JSON.parse does except for integers past 2^53: a line that may hold one
    (`_may_hold_unsafe_integer`) takes the loader's path, as does any other.
    This spares re-serializing the line to prove it canonical (issue 24).
    """
    if _may_hold_unsafe_integer(raw):
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(value) is not dict or value.get(HASH) != stored or line_hash(raw, stored) != stored:
        return None
    return value


def _may_hold_unsafe_integer(raw: bytes) -> bool:
    """Whether a run of 16 or more digits in `raw` could be an integer (no `.` or `e` beside it).

    orjson reads such an integer exactly; JSON.parse, as a double. Fraction digits (after a
    `.`) and an integral part before a `.` or exponent are doubles to both. A run inside a
    string answers True too: that line only takes the loader's path.
    """
    digits = raw.translate(_DIGITS_AS_NUL)
    start = digits.find(_SIXTEEN_DIGITS)
    while start >= 0:  # `find` gives a run's first digit, so the byte before is no digit
        end = start + len(_SIXTEEN_DIGITS)
        while digits[end : end + 1] == b"\0":
            end += 1
        if raw[start - 1 : start] != b"." and raw[end : end + 1] not in (b".", b"e", b"E"):
            return True
        start = digits.find(_SIXTEEN_DIGITS, end)
    return False


def _same_record(raw: bytes, stored: str, line: int) -> Mapping[str, JsonValue] | None:
    """The line's record parsed as the loader parses it, if it still hashes to `stored`."""
    parsed = parse_record(raw, None, line)
    if not isinstance(parsed, FormatProblem) and isinstance(parsed.value, dict):
        record = parsed.value
        if record.get(HASH) == stored and record_hash(parsed, record) == stored:
            return record
    return None


def _verified(
    path: str, handle: IO[bytes]
) -> Result[tuple[CassetteHeader, Mapping[str, JsonValue], ReplayKeys], FormatProblem]:
    """One pass of the loader's checks over `handle`, keeping the replay facts."""
    reader = LineReader.of(handle)
    if reader is None:  # a regular file always seeks; kept for the type checker
        return Failure(FormatProblem(f'cannot read cassette "{path}"'))
    keys = ReplayKeys(reader)
    state = ChainState(keep_records=False, keys=keys, count=False, size=reader.size)
    problem = run_sealed(state, numbered_lines(handle, reader.start), path)  # and its tail seal
    if problem is not None:
        return Failure(problem)
    header, record = state.header, state.header_record
    if header is None or record is None:  # finish() passed, so neither is None
        return Failure(FormatProblem("cassette is empty"))
    return Success((header, record, keys))


def _indexed(path: str) -> Result[ReplayIndex, FormatProblem]:
    """Open `path`, verify it in one pass and keep a descriptor for the reads that follow."""
    try:
        with open_regular(path) as handle:
            verified = _verified(path, handle)
            descriptor = os.dup(handle.fileno()) if isinstance(verified, Success) else -1
    except OSError as error:
        return Failure(_cannot_read(path, error))
    return verified.map(lambda facts: ReplayIndex(path, descriptor, facts[0], facts[1], facts[2]))


def read_replay_index(path: str | os.PathLike[str]) -> Result[ReplayIndex, FormatProblem]:
    """Verify the cassette at `path` in one pass and index it for replay (see the module).

    Refuses exactly what `read_cassette` refuses, with the same error.
    """
    return _indexed(os.path.abspath(os.fspath(path)))
