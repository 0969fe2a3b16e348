"""The canonical text an outcome is compared by for ambiguity (FMT-19), loader and verify."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from cassette_format.records.declare import wires
from cassette_format.records.model import HASH, InteractionBody

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

    from cassette_format.read.record_line import ParsedLine

__all__ = ["outcome_canonical_text", "outcome_text"]

_OUTCOME = wires(InteractionBody).outcome


def outcome_canonical_text(outcome: JsonValue, record_hash: str) -> str:
    """The canonical text an outcome is compared by for ambiguity (FMT-19), loader and verify.

    A verified record's outcome always canonicalizes. Should one ever not, the record's own
    hash (NUL-prefixed, so it equals no canonical text) keeps this total without walking
    the outcome again: a repr would recurse and fail on deeply nested results.
    """
    from cassette_canonical import canonical_json  # lazy: keeps `cassette verify` imports lean

    text: str | None = canonical_json(outcome).value_or(None)
    return "\0" + record_hash if text is None else text


def outcome_text(parsed: ParsedLine) -> bytes:
    """The canonical text of a verified record's outcome, compared for ambiguity (FMT-19)."""
    record: Any = parsed.value
    outcome = record[_OUTCOME]
    if parsed.canonical is not None:
        # A canonical line's sub-objects are canonical and were parsed in file order, which is
        # UTF-16 key order (CANON-3); orjson writes them back as they stand. Sorting here would
        # use code-point order and could disagree with a non-canonical member (FMT-19).
        return orjson.dumps(outcome)
    text = outcome_canonical_text(outcome, str(record[HASH]))
    return text.encode("utf-8", "surrogatepass")
