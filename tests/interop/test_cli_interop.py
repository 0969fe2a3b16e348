"""Every reference CLI run in the interop corpus, replayed through `cassette_cli.main`.

Run from inside the corpus folder with the manifest's relative paths; stdout, stderr and the
exit code must equal the reference's byte for byte once the absolute corpus path the
reference printed is rewritten to the relative one (manifest conventions). The only
deliberate difference is D-2 (strict UTF-8), asserted as our own behaviour.
"""

from __future__ import annotations

import io
import json
import os
import re
from typing import Any

import pytest
from cassette_cli import main
from support.paths import INTEROP

MANIFEST: dict[str, Any] = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))

#: D-2: invalid UTF-8 is a format error naming the line, where the reference decodes it
#: lossily and only notices the replaced bytes through the record hash.
STRICT_UTF8_CASE = "invalid-utf8-byte"


def _runs() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (case["name"], command, expected)
        for case in MANIFEST["cases"]
        for command, expected in case["expected"].items()
    ]


RUNS = _runs()


def _read(relative: str) -> str:
    return (INTEROP / relative).read_bytes().decode("utf-8")


def _run(args: list[str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    monkeypatch.chdir(INTEROP)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(args, stdout=stdout, stderr=stderr)
    corpus = os.getcwd() + os.sep
    return code, stdout.getvalue().replace(corpus, ""), stderr.getvalue().replace(corpus, "")


def test_every_case_is_replayed() -> None:
    cases = {case["name"] for case in MANIFEST["cases"]}
    assert len(cases) == MANIFEST["counts"]["cassette_cases"] + MANIFEST["counts"]["diff_pairs"]
    assert (
        len(RUNS) == 4 * MANIFEST["counts"]["cassette_cases"] + 2 * MANIFEST["counts"]["diff_pairs"]
    )


@pytest.mark.parametrize(
    ("case", "command", "expected"),
    [run for run in RUNS if run[0] != STRICT_UTF8_CASE],
    ids=[f"{case}:{command}" for case, command, _ in RUNS if case != STRICT_UTF8_CASE],
)
def test_output_and_exit_code_match_the_reference(
    case: str, command: str, expected: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:  # CLI-1..CLI-11, FMT-*, DIFF-*
    code, stdout, stderr = _run(list(expected["args"]), monkeypatch)
    assert (code, stdout, stderr) == (
        expected["exit_code"],
        _read(expected["stdout"]),
        _read(expected["stderr"]),
    )


@pytest.mark.parametrize(
    "command", ["verify-json", "verify", "inspect-json-show-calls", "inspect-show-calls"]
)
def test_invalid_utf8_is_refused_by_line_not_by_hash(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:  # D-2 (overrides FMT-2, GAP-1)
    case = next(item for item in MANIFEST["cases"] if item["name"] == STRICT_UTF8_CASE)
    expected = case["expected"][command]
    assert _read(expected["stderr"]) == "line 2 hash mismatch\n"  # the reference's lossy verdict
    code, stdout, stderr = _run(list(expected["args"]), monkeypatch)
    assert code == expected["exit_code"] == 1
    assert stdout == ""
    assert re.fullmatch(r"line 2 [^\n]*UTF-8[^\n]*\n", stderr)
