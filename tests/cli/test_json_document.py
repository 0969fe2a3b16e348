"""The JSON printer reproduces JSON.stringify(v, null, 2) plus the control escapes (CLI-9)."""

from __future__ import annotations

import json

import pytest
from cassette_cli.json_document import json_document, json_string
from cli.corpus import ReferenceRun, json_stdout, reference_runs
from hypothesis import given
from hypothesis import strategies as st

DOCUMENTS = [
    run
    for run in reference_runs()
    if run.exit_code in (0, 2)
    and run.command in ("verify-json", "inspect-json-show-calls", "diff-json")
]


@pytest.mark.parametrize("run", DOCUMENTS, ids=[run.id for run in DOCUMENTS])
def test_reference_documents_print_byte_for_byte(run: ReferenceRun) -> None:  # CLI-9
    assert json_document(json_stdout(run)) + "\n" == run.stdout


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ('"\\', '"\\"\\\\"'),
        ("\b\t\n\f\r", '"\\b\\t\\n\\f\\r"'),
        ("\x00\x1f", '"\\u0000\\u001f"'),
        ("\x7f\x85\x9f", '"\\u007f\\u0085\\u009f"'),  # Cc beyond C0: post-pass
        ("\u200e\u2028\u2029\ufeff", '"\\u200e\\u2028\\u2029\\ufeff"'),
        ("\U000e0001", '"\\udb40\\udc01"'),  # one escape per UTF-16 unit
        ("\U0001343f", '"\\ud80d\\udc3f"'),  # Cf since Unicode 15.0, pinned (GAP-28)
        ("\ud800", '"\\ud800"'),  # lone surrogate (CANON-4)
        ("\ud83d\ude00", '"\U0001f600"'),  # a pair is one character, written raw
        ("/é\u00a0😀", '"/é\u00a0😀"'),
    ],
)
def test_string_escapes(text: str, literal: str) -> None:  # CANON-4, CLI-9
    assert json_string(text) == literal


def test_layout_of_nested_and_empty_containers() -> None:  # CLI-9
    document = {"a": [], "b": {}, "c": [1, {"d": None, "e": True}], "f": 1e21, "g": 0.1}
    assert json_document(document) == (
        "{\n"
        '  "a": [],\n'
        '  "b": {},\n'
        '  "c": [\n'
        "    1,\n"
        "    {\n"
        '      "d": null,\n'
        '      "e": true\n'
        "    }\n"
        "  ],\n"
        '  "f": 1e+21,\n'
        '  "g": 0.1\n'
        "}"
    )


def test_deep_nesting_does_not_recurse() -> None:  # CANON-9
    depth = 20_000
    value: object = []
    for _ in range(depth):
        value = [value]
    text = json_document(value)
    assert text.count("[") == depth + 1
    assert text.endswith("]")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_output_is_valid_json_for_the_same_value(value: object) -> None:  # CLI-9
    text = json_document(value)
    assert json.loads(text) == json.loads(json.dumps(value))
    assert json.dumps(value, indent=2, ensure_ascii=True) == json.dumps(
        json.loads(text), indent=2, ensure_ascii=True
    )
