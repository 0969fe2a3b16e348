"""The helper process of a split verify: `main([_, PATH, START])` in a fresh interpreter.

It checks the header (line 1) for the request storage, then every line from byte START to
the end with the same per-line rules as the in-order verifier, and writes the range's
facts (`_ranges.encode_facts`) to stdout, or `null` at the first doubt: the parent then
verifies the whole file in order, so this process never has to name an error.
"""

from __future__ import annotations

import sys

from cassette_format._chain import ChainState
from cassette_format._lines import numbered_lines
from cassette_format._ranges import RangeFacts, write_facts
from cassette_format._run import run_lines
from cassette_format.errors import CassetteFormatError

__all__ = ["verify_range"]


def verify_range(path: str, start: int) -> RangeFacts | None:
    """The facts of lines from byte `start` on, or None if anything there might fail."""
    state = ChainState(keep_records=False)
    try:
        with open(path, "rb") as handle:
            header = next(numbered_lines(handle), None)
            if header is None or isinstance(header, CassetteFormatError) or header[3] >= start:
                return None  # the header must lie before the range
            if state.feed(*header) is not None:
                return None
            state.resume_mid_file()
            handle.seek(start)
            if run_lines(state, numbered_lines(handle, start), finish=False) is not None:
                return None
    except OSError:
        return None
    return state.facts()


def main(argv: list[str]) -> int:
    """Write the facts of the range `argv[2]:` of file `argv[1]`; exit 0 either way."""
    facts = None
    if len(argv) == 3 and argv[2].isdigit():
        facts = verify_range(argv[1], int(argv[2]))
    out = sys.stdout.buffer
    if facts is not None:
        try:
            write_facts(facts, out)
        except (TypeError, ValueError):  # e.g. a lone surrogate JSON cannot carry
            facts = None
    if facts is None:
        out.write(b"null\n")  # after a partial write too: the parent then fails to decode
    out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
