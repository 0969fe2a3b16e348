"""diff_cassettes matches the reference's `diff --json` document for every interop diff pair."""

import json
from pathlib import Path

import pytest
from cassette_topology.diff import diff_cassettes
from support.paths import INTEROP
from topology.builders import Cassette, Doc

MANIFEST = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))
DIFF_CASES = [case for case in MANIFEST["cases"] if case["type"] == "diff"]


def load(relative: str) -> Cassette:
    # Throwaway reader until cassette_format.parse_cassette lands: the pairs are valid files.
    lines = [line for line in (INTEROP / relative).read_text(encoding="utf-8").splitlines() if line]
    documents = [json.loads(line) for line in lines]
    return Cassette(Doc(documents[0]), tuple(Doc(item) for item in documents[1:]))


def test_the_corpus_has_diff_pairs() -> None:
    assert len(DIFF_CASES) == MANIFEST["counts"]["diff_pairs"] > 0


@pytest.mark.parametrize("case", DIFF_CASES, ids=[case["name"] for case in DIFF_CASES])
def test_diff_document_matches_reference(case: dict[str, object]) -> None:  # DIFF-1..7
    expected_file, actual_file = case["files"]  # type: ignore[misc]
    reference_stdout = Path(INTEROP / case["expected"]["diff-json"]["stdout"])  # type: ignore[index]
    reference = json.loads(reference_stdout.read_text(encoding="utf-8"))
    document = diff_cassettes(load(expected_file), load(actual_file)).as_document()
    assert json.dumps(document, ensure_ascii=False) == json.dumps(reference, ensure_ascii=False)
    assert document["equivalent"] == (case["verdict"] == "equivalent")
