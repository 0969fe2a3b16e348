"""Sealing a record into its line (WRITE-7): one canonical serialization, one hash, no decode.

The record is serialized once with a placeholder digest in its `hash` member; the digest
is SHA-256 of those bytes with that member cut out (exactly what the reader hashes,
`read.record_line.record_hash`), and the line is the same bytes with the digest written
over the placeholder. In canonical (key-sorted) text the top-level `hash` member is the
first `"hash":"sha256:` (only plain strings sort before it: `callKey`; `cassetteId`,
`createdAt`, `format`), so nothing else is searched or re-serialized. The sealed record is
built from the typed body it came from, never decoded back from the line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson
from cassette_canonical import canonical_bytes, canonical_json
from cassette_canonical.fast_path import plain_tree, sorted_text
from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.read.record_line import HASH_MEMBER
from cassette_format.records.declare import wires
from cassette_format.records.frozen_json import canonical_text
from cassette_format.records.model import (
    HASH,
    PREVIOUS_HASH,
    CassetteHeader,
    CassetteInteraction,
    InteractionBody,
    ResultOutcome,
)
from cassette_format.rules.chain import LOSSY
from cassette_format.rules.interaction import check_interaction

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "LOSSY",
    "Sealed",
    "header_line",
    "interaction_line",
    "seal_body",
    "seal_interaction",
    "sealed_line",
]

_PLACEHOLDER: Final = "sha256:" + "0" * 64
_DIGITS: Final = 64
_OUTCOME: Final = wires(CassetteInteraction).outcome
_RESULT: Final = wires(ResultOutcome).result


def _lossy(_: object) -> FormatProblem:
    return FormatProblem(LOSSY)


def _stamped(text: bytes) -> tuple[str, bytes]:
    """The digest of `text` minus its `hash` member, and the line with that digest written in."""
    start = text.find(HASH_MEMBER)
    digits = start + len(HASH_MEMBER)
    after = digits + _DIGITS + 1  # past the closing quote
    if text[after : after + 1] == b",":
        body = text[:start] + text[after + 1 :]
    else:  # the last member: drop the comma before it instead
        body = text[: start - 1] + text[after:]
    digest = hashlib.sha256(body).hexdigest()
    return "sha256:" + digest, text[:digits] + digest.encode("ascii") + text[digits + _DIGITS :]


def sealed_line(
    unhashed: dict[str, JsonValue], result_text: bytes | None = None
) -> Result[tuple[str, bytes], FormatProblem]:
    """A record's hash (FMT-15) and its exact canonical JSONL line (with `\\n`).

    `result_text`, the proved canonical text of the outcome's result (`canonical_text`), is
    written as it is: the result, most of a line, is neither walked nor written again.
    """
    placed = {**unhashed, HASH: _PLACEHOLDER}
    if result_text is not None:
        text = _with_result(placed, result_text)
        if text is not None:
            return Success(_with_newline(_stamped(text)))
    return canonical_bytes(placed).alt(_lossy).map(_stamped).map(_with_newline)


def _with_result(placed: dict[str, JsonValue], result_text: bytes) -> bytes | None:
    """The canonical text of `placed` with its result written as `result_text`, or None.

    orjson writes the record once with the result's text in its place (`sorted_text`: it
    refuses what it cannot write exactly, so the record is acyclic); the record around the
    result is then proved canonical with a null in that place (`plain_tree`: a walk of a
    few dozen members), so that text is canonical too (issue 24: no second serialization).
    """
    outcome = placed[_OUTCOME]
    if type(outcome) is not dict:
        return None
    text = sorted_text({**placed, _OUTCOME: {**outcome, _RESULT: orjson.Fragment(result_text)}})
    if text is None or not plain_tree({**placed, _OUTCOME: {**outcome, _RESULT: None}}):
        return None
    return text


def _with_newline(stamped: tuple[str, bytes]) -> tuple[str, bytes]:
    digest, text = stamped
    return digest, text + b"\n"


@dataclass(frozen=True, slots=True)
class Sealed:
    """An interaction chained after its previous record, its checked JSON and its exact line."""

    interaction: CassetteInteraction
    line: bytes
    record: Any  # the checked on-disk mapping the line holds (for the chain's keys)


def _chained(body: InteractionBody, previous_hash: str) -> dict[str, JsonValue]:
    """The body's on-disk members plus the link to the record before it.

    Its payloads are the frozen views' own containers (`to_wire`): they are serialized and
    checked here, never changed, so no copy is made.
    """
    unhashed = body.to_wire()
    unhashed[PREVIOUS_HASH] = previous_hash
    return unhashed


def _interaction(body: InteractionBody, previous_hash: str, digest: str) -> CassetteInteraction:
    """The typed record of a sealed body: its own members, linked and hashed (no decode)."""
    return CassetteInteraction(
        sequence=body.sequence,
        call_key=body.call_key,
        parent_key=body.parent_key,
        parent_context_fingerprint=body.parent_context_fingerprint,
        occurrence=body.occurrence,
        request_fingerprint=body.request_fingerprint,
        request=body.request,
        timing=body.timing,
        published=body.published,
        local=body.local,
        outcome=body.outcome,
        previous_hash=previous_hash,
        hash=digest,
    )


def seal_body(body: InteractionBody, previous_hash: str) -> Result[Sealed, FormatProblem]:
    """Chain `body` after `previous_hash`, hash and check it as line `sequence + 1` (WRITE-7).

    link -> one serialization and one hash -> check (FMT-10 rules 1-9) on the record's JSON.
    """
    line_number = body.sequence + 1 if isinstance(body.sequence, int) else 0
    unhashed = _chained(body, previous_hash)
    outcome = body.outcome
    proved = canonical_text(outcome.result) if type(outcome) is ResultOutcome else None
    match sealed_line(unhashed, proved):
        case Success((str() as digest, bytes() as line)):
            unhashed[HASH] = digest
            return check_interaction(unhashed, line_number, previous_hash).map(
                lambda record: Sealed(_interaction(body, previous_hash, digest), line, record)
            )
        case Failure(FormatProblem() as problem):
            return Failure(problem)
    raise AssertionError("a Result is a Success or a Failure")  # pragma: no cover


def seal_interaction(
    body: InteractionBody, previous_hash: str
) -> Result[CassetteInteraction, FormatProblem]:
    """The typed interaction `body` becomes after `previous_hash` (WRITE-7), checked."""
    return seal_body(body, previous_hash).map(lambda sealed: sealed.interaction)


def _line(text: Result[str, object]) -> Result[bytes, FormatProblem]:
    return text.map(lambda canonical: canonical.encode("utf-8") + b"\n").alt(_lossy)


def interaction_line(interaction: CassetteInteraction) -> Result[bytes, FormatProblem]:
    """The canonical JSONL line (with `\\n`) of a sealed interaction."""
    return _line(canonical_json(interaction.to_json()))


def header_line(header: CassetteHeader) -> Result[bytes, FormatProblem]:
    """The canonical JSONL line (with `\\n`) of a header."""
    return _line(canonical_json(header.to_json()))
