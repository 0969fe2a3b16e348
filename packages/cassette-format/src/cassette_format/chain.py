"""Sealing an interaction onto the chain: previousHash, hash, then the FMT-10 checks."""

from __future__ import annotations

from cassette_canonical import canonical_json, fingerprint
from returns.result import Failure, Result, Success

from cassette_format._reject import Reject
from cassette_format.build import interaction_from_checked
from cassette_format.errors import CassetteFormatError
from cassette_format.records import CassetteHeader, CassetteInteraction, InteractionBody
from cassette_format.schema import check_interaction

__all__ = ["header_line", "interaction_line", "seal_interaction"]

_LOSSY = "cassette record is not lossless canonical JSON"


def seal_interaction(
    body: InteractionBody, previous_hash: str
) -> Result[CassetteInteraction, CassetteFormatError]:
    """Chain `body` after `previous_hash` and validate it as line `sequence + 1` (WRITE-7)."""
    unhashed = body.to_json()
    unhashed["previousHash"] = previous_hash
    digest = fingerprint(unhashed)
    if not isinstance(digest, Success):
        return Failure(CassetteFormatError(_LOSSY))
    record = dict(unhashed)
    record["hash"] = digest.unwrap()
    line = body.sequence + 1 if isinstance(body.sequence, int) else 0
    try:
        checked = check_interaction(record, line, previous_hash)
    except Reject as reject:
        return Failure(CassetteFormatError(reject.message, line=line, path=reject.path))
    return Success(interaction_from_checked(checked))


def interaction_line(interaction: CassetteInteraction) -> Result[bytes, CassetteFormatError]:
    """The canonical JSONL line (with `\\n`) of a sealed interaction."""
    return _line(canonical_json(interaction.to_json()).alt(lambda _: None))


def header_line(header: CassetteHeader) -> Result[bytes, CassetteFormatError]:
    """The canonical JSONL line (with `\\n`) of a header."""
    return _line(canonical_json(header.to_json()).alt(lambda _: None))


def _line(text: Result[str, None]) -> Result[bytes, CassetteFormatError]:
    if not isinstance(text, Success):
        return Failure(CassetteFormatError(_LOSSY))
    return Success(text.unwrap().encode("utf-8") + b"\n")
