"""FMT-15..17: the per-line chain state shared by `parse_cassette` and the streaming verifier.

Each line is parsed (FMT-4/5), checked (FMT-9 for line 1, FMT-10 after) and linked
(FMT-15/16); the first problem comes back as a value (`feed`, `finish`), never raised.

It keeps only what the loader checks need (FMT-15..17), in `links.ChainLinks` (the same
links the writer's chain checks): the previous hash, the sequences seen (a bitmap) and, in
`line_keys`, the call keys and parent-context/request groups seen. Records are kept only
when the caller asks for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from cassette_format.problem import FormatProblem
from cassette_format.read.line_keys import ExactKeys
from cassette_format.read.lines import expected_lines
from cassette_format.read.links import ChainLinks, refusal_words
from cassette_format.read.record_line import ParsedLine, parse_record, record_hash
from cassette_format.read.tally import Tally
from cassette_format.records.model import HASH
from cassette_format.rules.chain import (
    EMPTY,
    LINKED,
    LOSSY,
    header_hash_mismatch,
    line_hash_mismatch,
    line_refusal,
    missing_occurrence,
    missing_sequence,
)
from cassette_format.rules.fast import header_fits, interaction_fits

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from cassette_canonical import JsonValue

    from cassette_format.read.line_keys import LineKeys
    from cassette_format.records.model import CassetteHeader, CassetteInteraction

__all__ = ["ChainState"]

#: Interactions checked by the Python one-pass check before the C one (`rules.struct_fits`)
#: takes over: loading msgspec costs about what it saves on this many lines, so a small
#: file never loads it.
ACCELERATE_AFTER: Final = 8192


def _accelerated() -> Callable[[object, str], bool]:
    """The C one-pass check of an interaction (loaded on first use)."""
    from cassette_format.rules.struct_fits import interaction_struct_fits  # lazy: large files

    return interaction_struct_fits


class ChainState:
    """Feed numbered non-blank lines in file order; `finish` runs the contiguity checks.

    `keys` remembers call keys and groups across lines (`_line_keys`): compact offsets
    into a seekable file for `verify`, exact in-memory keys otherwise (the default).
    `count=False` leaves the FMT-21 summary counters alone (replay's pass needs none).
    """

    def __init__(
        self,
        *,
        keep_records: bool,
        keys: LineKeys | None = None,
        count: bool = True,
        size: int = 0,
    ) -> None:
        """`size` is the stream's length when known: a file whose first interaction line says
        it holds more than ACCELERATE_AFTER of them loads the C check at once."""
        self.keep_records = keep_records
        self._size = size
        self._count = count
        self.header_record: Mapping[str, JsonValue] | None = None
        self._header: CassetteHeader | None = None
        self.interactions: list[CassetteInteraction] = []
        self.tally = Tally()
        self.links = ChainLinks(ExactKeys(count_ambiguity=False) if keys is None else keys)
        self._fits: Callable[[object, str], bool] = interaction_fits
        self._python_left = ACCELERATE_AFTER

    @classmethod
    def resumed(cls, header: Mapping[str, JsonValue], previous_hash: str) -> ChainState:
        """A state past `header` and a line hashed `previous_hash`: checks one line read back.

        The lazy reader (`replay_index`) verifies a line again when replay delivers it, with
        the loader's checks and messages; the records it decodes are kept.
        """
        state = cls(keep_records=True, count=False)
        state.header_record = header
        state.links.start(header)
        state.links.previous_hash = previous_hash
        return state

    @property
    def header(self) -> CassetteHeader | None:
        """The typed header once line 1 verified (built on first use: verify needs none)."""
        if self._header is None and self.header_record is not None:
            from cassette_format.records.decode import decode_header  # lazy: keeps verify lean

            self._header = decode_header(self.header_record).value_or(None)
        return self._header

    @property
    def ambiguous_groups(self) -> int | None:
        """FMT-19's count once `finish` passed, when the keys count it (verify's do)."""
        return self.links.keys.ambiguous

    def feed(
        self, number: int, raw: bytes | None, text: str | None, offset: int
    ) -> FormatProblem | None:
        """Verify one line: None, or its problem with the reference's message."""
        parsed = parse_record(raw, text, number)
        if isinstance(parsed, FormatProblem):
            return parsed
        if self.header_record is None:
            return self._feed_header(parsed)
        return self._feed_interaction(parsed, number, offset)

    def _feed_header(self, parsed: ParsedLine) -> FormatProblem | None:
        value = parsed.value
        if not header_fits(value):
            from cassette_format.rules.header import check_header  # lazy: on doubt only

            problem = check_header(value).swap().value_or(None)
            if problem is not None:
                return problem
        header: Any = value  # accepted by FMT-9 rules 1-17
        computed = record_hash(parsed, header)
        if computed is None:
            return FormatProblem(LOSSY, line=1)
        if computed != header[HASH]:
            return header_hash_mismatch()
        self.header_record = header
        self.links.start(header)
        return None

    def _feed_interaction(
        self, parsed: ParsedLine, number: int, offset: int
    ) -> FormatProblem | None:
        value = parsed.value
        links = self.links
        previous_hash = links.previous_hash
        self._python_left -= 1
        if not self._python_left or (
            self._size and parsed.canonical and self._long(parsed.canonical, offset)
        ):
            self._fits = _accelerated()
            self._python_left = -1
        # The C check first (once loaded), then the Python one: either one's yes is final.
        if not self._fits(value, previous_hash) and not interaction_fits(value, previous_hash):
            from cassette_format.rules.interaction import check_interaction_in_order  # on doubt

            problem = check_interaction_in_order(value, number, previous_hash).swap().value_or(None)
            if problem is not None:
                return problem
        # Accepted by FMT-10 rules 1-9, so every member indexed below exists as validated.
        record: Any = value
        computed = record_hash(parsed, record)  # FMT-10 rule 10
        if computed is None:
            return FormatProblem(LOSSY)
        if computed != record[HASH]:
            return line_hash_mismatch(number)
        refused = links.link(parsed, offset)  # FMT-15/16
        if refused != LINKED:
            return line_refusal(refused, number, refusal_words(record), links.storage)
        if self.keep_records:
            from cassette_format.records.decode import decode_interaction  # lazy, as above

            decoded = decode_interaction(record)
            interaction = decoded.value_or(None)
            if interaction is None:
                return decoded.swap().value_or(None)
            self.interactions.append(interaction)
        if self._count:
            self.tally.count(record)
        return None

    def _long(self, line: bytes, offset: int) -> bool:
        """Whether lines like this first interaction's leave room for ACCELERATE_AFTER more.

        Asked once: the answer either loads the C check or is final.
        """
        size, self._size = self._size, 0
        return expected_lines(size, offset, line) > ACCELERATE_AFTER

    def finish(self) -> FormatProblem | None:
        """FMT-17 contiguity of sequences and of each group's occurrences; empty file check."""
        if self.header_record is None:
            return FormatProblem(EMPTY)
        missing = self.links.sequences.first_missing()
        if missing is not None:
            return missing_sequence(missing)
        missing = self.links.keys.finish()
        if missing is not None:
            return missing_occurrence(missing)
        return None
