"""Redacted reference files stay comparable: the catalogue adds nothing to their stored text."""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_canonical import parse_json
from cassette_provider.live.redact import catalogue_patterns, compile_redactor
from support.paths import INTEROP

CASSETTES = sorted((INTEROP / "cassettes").glob("valid-*.cassette.jsonl"))


def _lines(path: Path) -> list[object]:
    """The parsed lines of a cassette (iterative parser: one fixture is 3,000 levels deep)."""
    raw = path.read_bytes().replace(b"\r\n", b"\n").split(b"\n")
    return [parse_json(line).unwrap() for line in raw if line.strip()]


def _strings(value: object) -> list[str]:
    """Every string and object key in a JSON value (iteratively)."""
    found: list[str] = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            found.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@pytest.mark.parametrize("path", CASSETTES, ids=lambda path: path.name)
def test_catalogue_finds_nothing_in_reference_written_files(path: Path) -> None:
    """REDACT-3: on files the reference wrote, the extra shapes match nothing."""
    strings = [text for line in _lines(path) for text in _strings(line)]
    hits = [
        (pattern.pattern[:40], text[:40])
        for text in strings
        for pattern in catalogue_patterns()
        if pattern.search(text)
    ]
    assert hits == []


def test_the_redacted_fixture_redacts_again_as_the_reference_would() -> None:
    """valid-redacted: re-redacting its stored strings adds no catalogue matches (GAP-11)."""
    path = INTEROP / "cassettes" / "valid-redacted.cassette.jsonl"
    lines = [line for line in _lines(path) if isinstance(line, dict)]
    ours = compile_redactor(True, ()).unwrap()
    reference_only = type(ours)(True, ours.patterns[:4])
    texts = [text for line in lines[1:] for text in _strings(line["outcome"])]
    texts += [text for line in lines[1:] for text in _strings(line["request"])]
    assert any("[REDACTED]" in text for text in texts)
    for text in texts:
        assert ours.redact_text(text) == reference_only.redact_text(text)
