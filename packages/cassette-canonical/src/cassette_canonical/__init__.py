"""cassette-canonical: strict JSON in, byte-exact canonical JSON and SHA-256 fingerprints out.

Names load on first use: the digest shape and the canonical-bytes check that
``cassette verify`` runs per line import neither the parser nor ``returns``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cassette_canonical.digest import (
        canonical_bytes,
        canonical_json,
        fingerprint,
        fingerprint_bytes,
    )
    from cassette_canonical.digest_shape import is_digest
    from cassette_canonical.errors import CanonicalError
    from cassette_canonical.fast_path import is_canonical_text
    from cassette_canonical.json_value import JsonValue
    from cassette_canonical.numbers import number_text
    from cassette_canonical.parse import parse_js_json, parse_json
    from cassette_canonical.strings import utf16_sort_key

# Each public name and the submodule that defines it.
_HOMES = {
    "CanonicalError": "errors",
    "JsonValue": "json_value",
    "canonical_bytes": "digest",
    "canonical_json": "digest",
    "fingerprint": "digest",
    "fingerprint_bytes": "digest",
    "is_canonical_text": "fast_path",
    "is_digest": "digest_shape",
    "number_text": "numbers",
    "parse_js_json": "parse",
    "parse_json": "parse",
    "utf16_sort_key": "strings",
}

__all__ = [
    "CanonicalError",
    "JsonValue",
    "canonical_bytes",
    "canonical_json",
    "fingerprint",
    "fingerprint_bytes",
    "is_canonical_text",
    "is_digest",
    "number_text",
    "parse_js_json",
    "parse_json",
    "utf16_sort_key",
]


def __getattr__(name: str) -> object:
    """Import the submodule holding ``name`` on first access and keep the name here."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names, loaded or not."""
    return __all__
