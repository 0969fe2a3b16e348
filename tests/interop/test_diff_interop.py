"""diff_cassettes matches the reference's `diff --json` document for every interop diff pair."""

import json
from pathlib import Path

import pytest
from cassette_format import CassetteFile, parse_cassette
from cassette_topology import diff_cassettes
from returns.result import Success
from support.paths import INTEROP

MANIFEST = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))
DIFF_CASES = [case for case in MANIFEST["cases"] if case["type"] == "diff"]


def load(relative: str) -> CassetteFile:
    parsed = parse_cassette((INTEROP / relative).read_bytes(), relative)
    assert isinstance(parsed, Success), parsed
    cassette: CassetteFile = parsed.unwrap()
    return cassette


def test_the_corpus_has_diff_pairs() -> None:
    assert len(DIFF_CASES) == MANIFEST["counts"]["diff_pairs"] > 0


@pytest.mark.parametrize("case", DIFF_CASES, ids=[case["name"] for case in DIFF_CASES])
def test_diff_document_matches_reference(case: dict[str, object]) -> None:  # DIFF-1..7
    files = case["files"]
    assert isinstance(files, list)
    expected_file, actual_file = files
    reference_stdout = Path(INTEROP / case["expected"]["diff-json"]["stdout"])  # type: ignore[index]
    reference = json.loads(reference_stdout.read_text(encoding="utf-8"))
    document = diff_cassettes(load(expected_file), load(actual_file)).as_document()
    assert json.dumps(document, ensure_ascii=False) == json.dumps(reference, ensure_ascii=False)
    assert document["equivalent"] == (case["verdict"] == "equivalent")
