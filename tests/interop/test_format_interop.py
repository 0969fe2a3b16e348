"""Acceptance: every reference cassette reaches the reference verdict and message (FMT-*, D-2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cassette_canonical import canonical_json
from cassette_format import CassetteFile, parse_cassette, summarize, verify_stream
from returns.result import Failure, Success
from support.paths import INTEROP

MANIFEST: dict[str, Any] = json.loads((INTEROP / "manifest.json").read_text("utf-8"))
CASES = [case for case in MANIFEST["cases"] if case["type"] == "cassette"]
# D-2: strict UTF-8. The reference decodes lossily and notices only through the hash.
D2_MESSAGES = {"invalid-utf8-byte": "line 2 is not valid UTF-8"}


def _expected_summary(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        (INTEROP / "expected" / name / "verify-json.stdout").read_text("utf-8")
    )
    document.pop("file")
    return document


def _expected_message(name: str) -> str:
    stderr = (INTEROP / "expected" / name / "verify.stderr").read_text("utf-8")
    assert stderr.endswith("\n")
    assert stderr.count("\n") == 1
    return D2_MESSAGES.get(name, stderr[:-1])


def _bytes(case: dict[str, Any]) -> bytes:
    return Path(INTEROP / case["files"][0]).read_bytes()


def test_corpus_is_complete() -> None:
    assert len(CASES) == MANIFEST["counts"]["cassette_cases"]
    assert D2_MESSAGES.keys() <= {case["name"] for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_parse_reaches_reference_verdict(case: dict[str, Any]) -> None:  # FMT-1..21
    result = parse_cassette(_bytes(case))
    if case["verdict"] == "valid":
        assert isinstance(result, Success), result
        summary = summarize(result.unwrap())
        expected = _expected_summary(case["name"])
        assert summary == expected
        assert list(summary) == list(expected)  # key order of the reference document
        assert json.dumps(summary) == json.dumps(expected)
    else:
        assert isinstance(result, Failure)
        error = result.failure()
        assert error.code == "CASSETTE_FORMAT"
        assert error.message == _expected_message(case["name"])


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_streaming_verifier_agrees(case: dict[str, Any]) -> None:  # FMT-18..21
    with open(INTEROP / case["files"][0], "rb") as stream:
        result = verify_stream(stream)
    if case["verdict"] == "valid":
        assert isinstance(result, Success), result
        assert json.dumps(result.unwrap()) == json.dumps(_expected_summary(case["name"]))
    else:
        assert isinstance(result, Failure)
        assert result.failure().message == _expected_message(case["name"])


@pytest.mark.parametrize(
    "case",
    [case for case in CASES if case["verdict"] == "valid"],
    ids=[case["name"] for case in CASES if case["verdict"] == "valid"],
)
def test_text_input_agrees_with_bytes(case: dict[str, Any]) -> None:  # FMT-3
    data = _bytes(case)
    from_bytes = parse_cassette(data).unwrap()
    from_text = parse_cassette(data.decode("utf-8")).unwrap()
    # Canonical text, not ==: the deep case nests ~6,000 levels, beyond recursive equality.
    assert _texts(from_bytes) == _texts(from_text)


def _texts(cassette: CassetteFile) -> list[str]:
    records = [cassette.header.to_json(), *(i.to_json() for i in cassette.interactions)]
    return [canonical_json(record).unwrap() for record in records]
