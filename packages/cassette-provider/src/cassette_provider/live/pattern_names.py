"""What a header stores for custom redaction patterns: a fingerprint, never the source (issue 26).

A custom pattern is often a literal secret (`sk-acme-…`), and the header is committed with the
cassette, so the header's `redactionPatterns` holds `sha256:<hex>` of each source's UTF-8 bytes
instead of the source. A file that already holds the sources (written by the reference or by an
earlier version) keeps them when it is appended to with the same patterns, so WRITE-4's
comparison still holds and the existing header, which append never rewrites, stays valid.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Final

from cassette_canonical import parse_json
from cassette_format.read.lines import MAX_LINE_BYTES

__all__ = [
    "PATTERN_FINGERPRINT_PREFIX",
    "header_patterns",
    "pattern_fingerprint",
    "stored_patterns",
]

#: How a stored pattern fingerprint starts; the request fingerprints use the same form.
PATTERN_FINGERPRINT_PREFIX: Final = "sha256:"


def pattern_fingerprint(source: str) -> str:
    """`sha256:<64 hex>` of one pattern source (lone surrogates kept as they are)."""
    digest = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{PATTERN_FINGERPRINT_PREFIX}{digest}"


def stored_patterns(sources: Sequence[str], existing: Sequence[str] | None) -> tuple[str, ...]:
    """The header's patterns: fingerprints, or the sources an appended-to file already holds."""
    if existing is not None and list(existing) == list(sources):
        return tuple(sources)
    return tuple(pattern_fingerprint(source) for source in sources)


def header_patterns(path: str) -> tuple[str, ...] | None:
    """The `redactionPatterns` of an existing cassette's header line, or None if unreadable.

    Only decides how to name patterns for an append; the writer checks the header itself.
    """
    try:
        with open(path, "rb") as stream:
            first = stream.readline(MAX_LINE_BYTES)
    except OSError:
        return None
    header = parse_json(first.decode("utf-8", "replace")).value_or(None)
    patterns = header.get("redactionPatterns") if isinstance(header, dict) else None
    if not isinstance(patterns, list):
        return None
    names = tuple(item for item in patterns if isinstance(item, str))
    return names if len(names) == len(patterns) else None
