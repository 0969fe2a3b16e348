"""Lines of a seekable stream read back by byte offset, for checks that keep only offsets.

The verifier remembers where each line starts instead of its keys (`_line_keys`); a key
match is confirmed here by reading the line again. Reading back restores the stream's
position, so the in-order pass over the same stream carries on undisturbed.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO

from cassette_format.errors import CassetteFormatError
from cassette_format.read.lines import MAX_LINE_BYTES, numbered_lines, strip_newline
from cassette_format.read.record_line import ParsedLine, parse_record

__all__ = ["LineReader"]


class LineReader:
    """Parsed lines of `stream` by offset; `interactions()` walks them all again in order."""

    __slots__ = ("_last", "_stream", "size", "start")

    def __init__(self, stream: IO[bytes], start: int, size: int) -> None:
        self._stream = stream
        self._last: tuple[int, ParsedLine | None] = (-1, None)
        self.start = start
        self.size = size

    @classmethod
    def of(cls, stream: IO[bytes]) -> LineReader | None:
        """A reader over `stream` from its current position; None when it cannot seek."""
        try:
            if not stream.seekable():
                return None
            start = stream.tell()
            size = stream.seek(0, io.SEEK_END)
            stream.seek(start)
        except (OSError, ValueError):
            return None
        return cls(stream, start, size)

    def parsed_at(self, offset: int) -> ParsedLine | None:
        """The record whose line starts at `offset`; None if it no longer parses (file changed)."""
        last_offset, last = self._last
        if offset == last_offset:
            return last
        stream = self._stream
        position = stream.tell()
        try:
            stream.seek(offset)
            raw = stream.readline(MAX_LINE_BYTES + 2)
        finally:
            stream.seek(position)
        parsed = parse_record(strip_newline(raw), None, 0)
        found = None
        if not isinstance(parsed, CassetteFormatError) and isinstance(parsed.value, dict):
            found = parsed
        self._last = (offset, found)
        return found

    def interactions(self) -> Iterator[ParsedLine]:
        """Every interaction line again, in file order (header skipped), after the pass."""
        self._stream.seek(self.start)
        lines = numbered_lines(self._stream, self.start)
        next(lines, None)
        for line in lines:
            if isinstance(line, CassetteFormatError):
                return
            number, raw, text, _ = line
            parsed = parse_record(raw, text, number)
            if not isinstance(parsed, CassetteFormatError) and isinstance(parsed.value, dict):
                yield parsed
