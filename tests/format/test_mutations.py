"""Any corruption of a valid cassette is a FormatProblem or leaves the same document."""

from __future__ import annotations

from cassette_canonical import canonical_json
from cassette_format import CassetteFile, FormatProblem, parse_cassette
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success
from support.paths import INTEROP

ORIGINAL = (INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl").read_bytes()
LINES = ORIGINAL.splitlines(keepends=True)


def _texts(cassette: CassetteFile) -> list[str]:
    records = [cassette.header.to_json(), *(i.to_json() for i in cassette.interactions)]
    return [canonical_json(record).unwrap() for record in records]


EXPECTED = _texts(parse_cassette(ORIGINAL).unwrap())


def _same_or_rejected(data: bytes) -> None:
    result = parse_cassette(data)
    if isinstance(result, Failure):
        error = result.failure()
        assert isinstance(error, FormatProblem)
        assert error.code == "CASSETTE_FORMAT"
        assert error.message
    else:
        assert isinstance(result, Success)
        assert _texts(result.unwrap()) == EXPECTED


@given(st.integers(0, len(ORIGINAL) - 1), st.integers(0, 255))
def test_single_byte_mutation(position: int, value: int) -> None:  # FMT-5, FMT-10, FMT-15
    mutated = bytearray(ORIGINAL)
    mutated[position] = value
    _same_or_rejected(bytes(mutated))


@given(st.integers(0, len(LINES) - 1))
def test_line_deletion(index: int) -> None:  # FMT-15, FMT-17, FMT-18
    result = parse_cassette(b"".join(LINES[:index] + LINES[index + 1 :]))
    if index == len(LINES) - 1:
        # FMT-18: the chain is unkeyed, so a truncated suffix that is still valid passes.
        assert _texts(result.unwrap()) == EXPECTED[:-1]
    else:
        assert isinstance(result, Failure)


@given(st.integers(0, len(LINES) - 1))
def test_line_duplication(index: int) -> None:  # FMT-15, FMT-16
    result = parse_cassette(b"".join(LINES[: index + 1] + LINES[index:]))
    assert isinstance(result, Failure)


@given(st.integers(0, len(LINES) - 2), st.integers(1, len(LINES) - 1))
def test_line_swap(first: int, offset: int) -> None:  # FMT-15
    second = min(first + offset, len(LINES) - 1)
    swapped = list(LINES)
    swapped[first], swapped[second] = swapped[second], swapped[first]
    _same_or_rejected(b"".join(swapped))
