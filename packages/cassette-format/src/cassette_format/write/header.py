"""New headers (FMT-22) and the header check the writer runs before touching the disk."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import UTC, datetime

from cassette_canonical import fingerprint
from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.records.model import (
    Capabilities,
    CassetteHeader,
    ProviderFacts,
    RequestStorage,
)
from cassette_format.rules.header import check_header

__all__ = ["create_header", "iso_timestamp", "validate_header"]

_LOSSY = "cassette record is not lossless canonical JSON"


def iso_timestamp(moment: datetime) -> str:
    """`YYYY-MM-DDTHH:mm:ss.sssZ` in UTC, as JavaScript's toISOString (never `+00:00`)."""
    # Formatted by hand (strftime costs a recorded call 3 us), with one %-format (half an
    # f-string's seven format specs); a UTC time is not converted again.
    utc = moment if moment.tzinfo is UTC else moment.astimezone(UTC)
    return "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ" % (  # noqa: UP031 - see above
        utc.year,
        utc.month,
        utc.day,
        utc.hour,
        utc.minute,
        utc.second,
        utc.microsecond // 1000,
    )


def _lossy(_: object) -> FormatProblem:
    return FormatProblem(_LOSSY, line=1)


def _hash_matches(header: CassetteHeader) -> Result[CassetteHeader, FormatProblem]:
    """FMT-9 rule 18: the header's hash is the digest of the rest of it."""
    return (
        fingerprint(header.body_json())
        .alt(_lossy)
        .bind(
            lambda digest: (
                Success(header)
                if digest == header.hash
                else Failure(FormatProblem("header hash mismatch", line=1))
            )
        )
    )


def validate_header(header: CassetteHeader) -> Result[CassetteHeader, FormatProblem]:
    """FMT-9 over the header's on-disk form, hash included."""
    return check_header(header.to_json()).bind(lambda _: _hash_matches(header))


def create_header(
    *,
    cassette: str,
    upstream: str,
    capabilities: Capabilities,
    inherits_parent_context: bool,
    request_storage: RequestStorage,
    redact_secrets: bool,
    cassette_id: str,
    created_at: datetime,
    redaction_patterns: Iterable[str] = (),
) -> Result[CassetteHeader, FormatProblem]:
    """A new header from its facts, id and creation time; hash computed last, then validated.

    Pure: the caller supplies the id and the time (the recorder passes a UUIDv4 and the
    current time, FMT-22), so the same inputs always give the same header.
    """
    unsealed = CassetteHeader(
        cassette_id=cassette_id,
        created_at=iso_timestamp(created_at),
        provider=ProviderFacts(
            cassette=cassette,
            upstream=upstream,
            capabilities=capabilities,
            inherits_parent_context=inherits_parent_context,
        ),
        request_storage=request_storage,
        redact_secrets=redact_secrets,
        redaction_patterns=tuple(redaction_patterns),
        hash="",
    )
    return (
        fingerprint(unsealed.body_json())
        .alt(_lossy)
        .bind(lambda digest: validate_header(replace(unsealed, hash=digest)))
    )
