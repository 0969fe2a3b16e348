"""Lines read back by byte offset, for checks that keep only offsets (FMT-16, FMT-17, FMT-19).

The verifier and the writer remember where each line starts instead of its keys
(`line_keys`); a key match is confirmed here by reading the line again: from a seekable
stream (its position restored, so the in-order pass carries on undisturbed) or, for the
writer, from its own file descriptor with `pread`.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from typing import IO

from cassette_format.problem import FormatProblem
from cassette_format.read.lines import MAX_LINE_BYTES, numbered_lines, strip_newline
from cassette_format.read.record_line import ParsedLine, parse_record

__all__ = ["LineReader", "fd_line"]

_CHUNK = 1 << 16


def _stream_line(stream: IO[bytes]) -> Callable[[int], bytes]:
    """The raw line starting at an offset of a seekable stream, its position kept."""

    def read_line(offset: int) -> bytes:
        position = stream.tell()
        try:
            stream.seek(offset)
            return stream.readline(MAX_LINE_BYTES + 2)
        finally:
            stream.seek(position)

    return read_line


def fd_line(fd: int) -> Callable[[int], bytes]:
    """The raw line starting at an offset of a file descriptor (`pread`, no position used)."""

    def read_line(offset: int) -> bytes:
        chunks: list[bytes] = []
        length = 0
        while length <= MAX_LINE_BYTES + 1:
            chunk = os.pread(fd, _CHUNK, offset + length)
            end = chunk.find(b"\n")
            if end >= 0:
                chunks.append(chunk[: end + 1])
                break
            if not chunk:
                break
            chunks.append(chunk)
            length += len(chunk)
        return b"".join(chunks)

    return read_line


class LineReader:
    """Parsed lines by offset; `interactions()` walks a stream's lines all again in order."""

    __slots__ = ("_last", "_read_line", "_stream", "size", "start")

    def __init__(
        self,
        read_line: Callable[[int], bytes],
        start: int,
        size: int,
        stream: IO[bytes] | None = None,
    ) -> None:
        self._read_line = read_line
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
        return cls(_stream_line(stream), start, size, stream)

    def parsed_at(self, offset: int) -> ParsedLine | None:
        """The record whose line starts at `offset`; None if it no longer parses (file changed)."""
        last_offset, last = self._last
        if offset == last_offset:
            return last
        parsed = parse_record(strip_newline(self._read_line(offset)), None, 0)
        found = None
        if not isinstance(parsed, FormatProblem) and isinstance(parsed.value, dict):
            found = parsed
        self._last = (offset, found)
        return found

    def interactions(self) -> Iterator[ParsedLine]:
        """Every interaction line again, in file order (header skipped): a stream's only."""
        stream = self._stream
        if stream is None:
            return
        stream.seek(self.start)
        lines = numbered_lines(stream, self.start)
        next(lines, None)
        for line in lines:
            if isinstance(line, FormatProblem):
                return
            number, raw, text, _ = line
            parsed = parse_record(raw, text, number)
            if not isinstance(parsed, FormatProblem) and isinstance(parsed.value, dict):
                yield parsed
