"""The writer's chain: bodies sealed onto the last record and linked, state kept compact.

A pure protocol object in h11's shape; the writer edge owns the descriptor, the lock, the
queue and the commit, and talks to it through three calls:

- `seal(body)`: the `Sealed` record and its exact line, or why the loader would refuse it
  beside what was written (FMT-10 rules 1-9, then FMT-15/16 by `read.links.ChainLinks`, the
  same links the reader checks). Changes nothing.
- `accept(sealed, offset)`: link the sealed line, which the writer will write at `offset`.
- `written()`: every accepted line is in the file now.

Call keys and groups are remembered as hash tags and line offsets (`read.line_keys.
CompactKeys`, two open-addressing tables of 8-byte slots kept under three quarters full:
about 22-43 bytes per call, plus 8 for an occurrence after the first). A tag hit is
confirmed by reading the line back: from the lines accepted but not yet written, else from
the writer's own file with `pread`.
"""

from __future__ import annotations

import io
import os
from typing import TYPE_CHECKING

from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.read.chain import ChainState
from cassette_format.read.line_keys import CompactKeys
from cassette_format.read.lines import numbered_lines, strip_newline
from cassette_format.read.links import ChainLinks, refusal_words
from cassette_format.read.record_line import ParsedLine
from cassette_format.read.reread import LineReader, fd_line
from cassette_format.read.run import run_lines
from cassette_format.rules.chain import EMPTY, LINKED, write_refusal
from cassette_format.write.seal import Sealed, seal_body

if TYPE_CHECKING:
    from cassette_format.records.model import InteractionBody

__all__ = ["Sealed", "WriterChain"]


class _PreadRaw(io.RawIOBase):
    """A file descriptor read from its start with `pread`: the writer's file offset untouched."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self._position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = os.pread(self._fd, len(buffer), self._position)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)


class WriterChain:
    """Seal bodies after the file's last record; link them; remember keys compactly."""

    __slots__ = ("_links", "_unwritten")

    def __init__(self, links: ChainLinks, unwritten: dict[int, bytes]) -> None:
        self._links = links
        self._unwritten = unwritten

    @classmethod
    def resume(cls, fd: int, *, tag_bits: int | None = None) -> Result[WriterChain, FormatProblem]:
        """The chain after every record of the file open (readable) at `fd`, header first.

        Reads the file with `pread` (the descriptor's offset is not moved) and links each
        line as the loader does; a file that is not a valid cassette is its first problem.
        `tag_bits` narrows the key tables' hash tags (tests force collisions with it).
        """
        unwritten: dict[int, bytes] = {}
        on_disk = fd_line(fd)

        def read_line(offset: int) -> bytes:
            line = unwritten.get(offset)
            return on_disk(offset) if line is None else line

        reader = LineReader(read_line, 0, os.fstat(fd).st_size)
        state = ChainState(keep_records=False, keys=CompactKeys(reader, tag_bits))
        with io.BufferedReader(_PreadRaw(fd)) as stream:
            problem = run_lines(state, numbered_lines(stream), finish=False)
        if problem is None and state.header_record is None:
            problem = FormatProblem(EMPTY)
        if problem is not None:
            return Failure(problem)
        return Success(cls(state.links, unwritten))

    @property
    def previous_hash(self) -> str:
        """The hash of the last record linked: what the next record's previousHash names."""
        return self._links.previous_hash

    def seal(self, body: InteractionBody) -> Result[Sealed, FormatProblem]:
        """The sealed record and its line, or why it cannot follow what was written."""
        return seal_body(body, self._links.previous_hash).bind(self._unrepeated)

    def _unrepeated(self, sealed: Sealed) -> Result[Sealed, FormatProblem]:
        links = self._links
        refused = links.refusal(sealed.record)
        if refused == LINKED:
            return Success(sealed)
        return Failure(write_refusal(refused, refusal_words(sealed.record), links.storage))

    def accept(self, sealed: Sealed, offset: int) -> None:
        """Link a sealed record whose line the writer writes at byte `offset`."""
        line = sealed.line
        self._unwritten[offset] = line
        self._links.link(ParsedLine(sealed.record, strip_newline(line)), offset)

    def written(self) -> None:
        """Every accepted line is in the file: read them back from there from now on."""
        self._unwritten.clear()
