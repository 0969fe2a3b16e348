"""A record's own `hash` member: the fingerprint of every other member (FMT-15, WRITE-7).

Cassette lines and session-log lines are sealed and checked by this one rule: a record
without `hash` yet gets the digest this answers, a read record must already hold it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_canonical import fingerprint

from cassette_format.records.model import HASH

if TYPE_CHECKING:
    from collections.abc import Mapping

    from cassette_canonical import CanonicalError, JsonValue
    from returns.result import Result

__all__ = ["own_hash"]


def own_hash(record: Mapping[str, JsonValue]) -> Result[str, CanonicalError]:
    """The digest a record's `hash` member must hold: the fingerprint of the rest of it."""
    return fingerprint({key: value for key, value in record.items() if key != HASH})
