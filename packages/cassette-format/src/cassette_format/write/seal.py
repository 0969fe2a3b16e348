"""Sealing an interaction onto the chain (WRITE-7): previousHash, hash, then FMT-10 rules 1-9."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_canonical import canonical_json
from returns.result import Result

from cassette_format.errors import CassetteFormatError
from cassette_format.records.decode import decode_interaction
from cassette_format.records.model import CassetteHeader, CassetteInteraction, InteractionBody
from cassette_format.records.own_hash import own_hash
from cassette_format.rules.interaction import check_interaction

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["header_line", "interaction_line", "seal_interaction"]

_LOSSY = "cassette record is not lossless canonical JSON"


def _lossy(_: object) -> CassetteFormatError:
    return CassetteFormatError(_LOSSY)


def _hashed(unhashed: dict[str, JsonValue]) -> Result[dict[str, JsonValue], CassetteFormatError]:
    """The record with its `hash` member, the digest of everything else."""
    return own_hash(unhashed).map(lambda digest: {**unhashed, "hash": digest}).alt(_lossy)


def _chained(body: InteractionBody, previous_hash: str) -> dict[str, JsonValue]:
    """The body's on-disk members plus the link to the record before it."""
    unhashed = body.to_json()
    unhashed["previousHash"] = previous_hash
    return unhashed


def seal_interaction(
    body: InteractionBody, previous_hash: str
) -> Result[CassetteInteraction, CassetteFormatError]:
    """Chain `body` after `previous_hash` and validate it as line `sequence + 1` (WRITE-7).

    link -> hash -> check (FMT-10 rules 1-9) -> decode to the typed, frozen record.
    """
    line = body.sequence + 1 if isinstance(body.sequence, int) else 0
    return (
        _hashed(_chained(body, previous_hash))
        .bind(lambda record: check_interaction(record, line, previous_hash))
        .bind(decode_interaction)
    )


def _line(text: Result[str, object]) -> Result[bytes, CassetteFormatError]:
    return text.map(lambda canonical: canonical.encode("utf-8") + b"\n").alt(_lossy)


def interaction_line(interaction: CassetteInteraction) -> Result[bytes, CassetteFormatError]:
    """The canonical JSONL line (with `\\n`) of a sealed interaction."""
    return _line(canonical_json(interaction.to_json()))


def header_line(header: CassetteHeader) -> Result[bytes, CassetteFormatError]:
    """The canonical JSONL line (with `\\n`) of a header."""
    return _line(canonical_json(header.to_json()))
