"""Physical lines to numbered non-blank lines, exactly as the reference splits them (FMT-3).

A line longer than MAX_LINE_BYTES is refused while it is read: a stream is read with a
bounded `readline`, so a giant line (or a file with no newline at all) never sits in
memory whole. 16 MiB is far above any recorded call (results are model outputs) while
bounding the parser's transient memory per line (a small constant factor of its bytes).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial

from cassette_format.problem import FormatProblem
from cassette_format.read.record_line import decode_line
from cassette_format.text.js import is_js_blank

__all__ = [
    "GUESS_LIMIT",
    "MAX_LINE_BYTES",
    "LineOrProblem",
    "NumberedLine",
    "expected_lines",
    "iter_text_lines",
    "numbered_lines",
    "strip_newline",
]

MAX_LINE_BYTES = 16 * 1024 * 1024
#: The most lines `expected_lines` announces: tables sized by its guess stay within tens of
#: megabytes whatever the length of the line it was made from.
GUESS_LIMIT = 1 << 20

_ASCII_SPACE = b" \t\n\r\x0b\x0c"

NumberedLine = tuple[int, bytes | None, str | None, int]
# A line, or the problem that ends the stream there (it is always the last item).
LineOrProblem = NumberedLine | FormatProblem


def strip_newline(raw: bytes) -> bytes:
    """Drop the line's `\\n` and one `\\r` before it (split on /\\r?\\n/)."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


def expected_lines(size: int, offset: int, line: bytes) -> int:
    """About how many lines a file of `size` bytes holds from `offset`, where `line` starts.

    A guess from one line's length, for sizing tables once rather than growing them.
    """
    return min((size - offset) // (len(line) + 1) + 1, GUESS_LIMIT)


def too_long(line: int) -> FormatProblem:
    """The refusal of an over-long line, naming its non-blank number."""
    return FormatProblem(f"line {line} is longer than {MAX_LINE_BYTES} bytes", line=line)


def _bounded(physical: Iterable[bytes]) -> Iterable[bytes]:
    """A stream's lines read at most MAX_LINE_BYTES + 2 bytes at a time (room for CRLF)."""
    readline = getattr(physical, "readline", None)
    if readline is None:
        return physical
    return iter(partial(readline, MAX_LINE_BYTES + 2), b"")


def numbered_lines(physical: Iterable[bytes], start: int = 0) -> Iterator[LineOrProblem]:
    """Yield (non-blank number, raw bytes, decoded text or None, byte offset) per line.

    `start` is the byte offset of the first physical line. Text is decoded here only when
    needed to decide blankness (non-ASCII edges); an invalid UTF-8 line is never blank
    (its bytes would not trim away), so it is numbered and reported (D-2). A problem
    (that, or a line too long to read) is yielded as the stream's last item.
    """
    number = 0
    offset = start
    for chunk in _bounded(physical):
        start = offset
        offset += len(chunk)
        # `strip_newline`, inline: once per line of the file.
        if chunk.endswith(b"\n"):
            raw = chunk[:-2] if chunk.endswith(b"\r\n") else chunk[:-1]
        else:
            raw = chunk
        if not raw:
            continue
        if len(raw) > MAX_LINE_BYTES:
            yield too_long(number + 1)
            return
        text: str | None = None
        first, last = raw[0], raw[-1]
        if first >= 0x80 or last >= 0x80 or first in _ASCII_SPACE or last in _ASCII_SPACE:
            if not raw.strip(_ASCII_SPACE):
                continue
            decoded = decode_line(raw, number + 1)
            if isinstance(decoded, FormatProblem):
                yield decoded
                return
            text = decoded
            if is_js_blank(text):
                continue
        number += 1
        yield number, raw, text, start


def iter_text_lines(text: str) -> Iterator[LineOrProblem]:
    """Yield numbered non-blank lines of an already-decoded document."""
    number = 0
    pieces = text.split("\n")
    last = len(pieces) - 1
    for index, piece in enumerate(pieces):
        line = piece[:-1] if index < last and piece.endswith("\r") else piece
        if is_js_blank(line):
            continue
        number += 1
        if len(line) > MAX_LINE_BYTES // 4 and len(line.encode("utf-8", "surrogatepass")) > (
            MAX_LINE_BYTES
        ):
            yield too_long(number)
            return
        try:
            raw: bytes | None = line.encode("utf-8")
        except UnicodeEncodeError:
            raw = None
        yield number, raw, line, -1
