"""cassette-canonical: strict JSON in, byte-exact canonical JSON and SHA-256 fingerprints out."""

from cassette_canonical.digest import canonical_json, fingerprint, is_digest
from cassette_canonical.errors import CanonicalError
from cassette_canonical.json_value import JsonValue
from cassette_canonical.numbers import number_text
from cassette_canonical.parse import parse_json
from cassette_canonical.strings import utf16_sort_key

__all__ = [
    "CanonicalError",
    "JsonValue",
    "canonical_json",
    "fingerprint",
    "is_digest",
    "number_text",
    "parse_json",
    "utf16_sort_key",
]
