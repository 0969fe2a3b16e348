"""`header.createdAt` accepts what RFC 3339 §5.6 allows and nothing V8-only (D-3, FMT-9)."""

from __future__ import annotations

import hashlib

import orjson
import pytest
from cassette_canonical import canonical_json
from cassette_format import parse_cassette
from returns.result import Failure, Success

from format.builders import make_header

HEADER = make_header()


def _parsed(created_at: str) -> Success[object] | Failure[object]:
    document = HEADER.body_json()
    document["createdAt"] = created_at
    text = canonical_json(document).unwrap()
    document["hash"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return parse_cassette(orjson.dumps(document))  # type: ignore[return-value]


@pytest.mark.parametrize(
    "created_at",
    [
        "2026-08-18T03:00:00.123Z",  # what writers emit (FMT-22)
        "2026-08-18t03:00:00.123z",  # RFC 3339 §5.6 NOTE: `t` and `z` may be lower case
        "2026-08-18t03:00:00Z",
        "2026-08-18T03:00:00z",
        "2026-08-18 03:00:00Z",  # §5.6 NOTE: a space may separate date and time
        "2026-08-18T03:00:00.1Z",  # time-secfrac = "." 1*DIGIT
        "2026-08-18T03:00:00.123456789012Z",
        "2026-08-18T03:00:00+02:00",
        "2026-08-18T03:00:00-00:00",  # unknown local offset (§4.3)
        "2026-08-18T03:00:00.5+23:59",
        "2016-12-31T23:59:60Z",  # leap second (time-second 00-60)
        "2024-02-29T00:00:00Z",
        "2026-08-18T03:00Z",  # ISO 8601 reduced precision, kept from before
        "2026-08-18",
        "2026-08",
        "2026",
        "0000-01-01T00:00:00.000Z",  # RFC 3339 date-fullyear is 4DIGIT: year 0000 too
        "0000-02-29T12:00:00+01:00",  # year 0 is a leap year (divisible by 400)
        "0000-12-31",
        "0000",
        "2000-02-29T00:00:00Z",
    ],
)
def test_rfc3339_forms_are_accepted(created_at: str) -> None:  # D-3
    assert isinstance(_parsed(created_at), Success), created_at


@pytest.mark.parametrize(
    "created_at",
    [
        "2026-02-30T00:00:00Z",  # day overflow (V8 accepts it)
        "2025-02-29T00:00:00Z",
        "2026-13-01T00:00:00Z",
        "2026-08-18T24:00:00Z",
        "2026-08-18T03:60:00Z",
        "2026-08-18T03:00:61Z",
        "1900-02-29T00:00:00Z",  # divisible by 100, not by 400: no leap day
        "0100-02-29",
        "0000-00-01T00:00:00Z",
        "0000-01-00",
        "2026-08-18T03:00:00",  # no zone
        "2026-08-18T03:00:00.Z",  # a fraction needs a digit
        "2026-08-18T03:00:00+24:00",
        "2026-08-18T03:00:00+02:60",
        "2026-08-18T03:00:00+0200",
        "2026-08-18X03:00:00Z",
        "2026-08-18T03:00:00Zz",
        "２０２６-08-18T03:00:00Z",  # fullwidth digits are not DIGIT
        "2026-08-18T03:00:00Z\n",
        " 2026-08-18T03:00:00Z",
        "1",
        "0",
        "August 18, 2026",
        "Tue, 18 Aug 2026 03:00:00 GMT",
    ],
)
def test_other_strings_are_rejected(created_at: str) -> None:  # D-3, FMT-9 rule 7
    result = _parsed(created_at)
    assert isinstance(result, Failure), created_at
    assert result.failure().message == "header.createdAt must be an ISO timestamp"  # type: ignore[attr-defined]
