"""SHA-256 fingerprints of canonical JSON (CANON-8)."""

from __future__ import annotations

import hashlib

from returns.result import Result, Success

from cassette_canonical.errors import CanonicalError
from cassette_canonical.fast_path import fast_canonical
from cassette_canonical.serialize import serialize_exact


def canonical_json(value: object) -> Result[str, CanonicalError]:
    """The canonical JSON text of a value (CANON-1..7, D-1), or why it has none."""
    data = fast_canonical(value)
    if data is not None:
        return Success(data.decode("utf-8"))
    return serialize_exact(value)


def canonical_bytes(value: object) -> Result[bytes, CanonicalError]:
    """The UTF-8 bytes of the value's canonical JSON text: what a record line holds (CANON-8)."""
    data = fast_canonical(value)
    if data is not None:
        return Success(data)
    return serialize_exact(value).map(_utf8)


def _utf8(text: str) -> bytes:
    """UTF-8 of a canonical text (which never holds surrogates)."""
    return text.encode("utf-8")


def fingerprint(value: object) -> Result[str, CanonicalError]:
    """``sha256:<64 hex>`` of the UTF-8 bytes of the value's canonical JSON text."""
    data = fast_canonical(value)
    if data is not None:
        return Success(fingerprint_bytes(data))
    return serialize_exact(value).map(_digest_of_text)


def fingerprint_bytes(data: bytes) -> str:
    """``sha256:<64 hex>`` of canonical bytes a caller already holds (CANON-8)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _digest_of_text(text: str) -> str:
    """Digest of a canonical text (which never holds surrogates)."""
    return fingerprint_bytes(text.encode("utf-8"))
