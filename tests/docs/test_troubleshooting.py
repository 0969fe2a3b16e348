"""docs/troubleshooting.md lists each first-hour message as the code writes it (issue 27).

Each message is built by the function that writes it, with the page's placeholders (`<path>`,
`<test id>`, ...) as arguments, and the page must hold it verbatim up to where the page
abbreviates it with `...`. A message whose wording changes fails here until the page follows.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_format.read.tail_seal import SealCheck, TailSeal
from cassette_provider import CassetteError, FunctionProvider, SimpleAgent, StartRequest
from cassette_provider.contract.errors import NO_UPSTREAM
from cassette_provider.install import _EXISTS_HINT
from cassette_provider.pytest.failed_recordings import (
    empty_cassette_message,
    missing_cassette_message,
    no_call_message,
    not_committed_note,
)
from cassette_provider.pytest.foreign_options import record_mode_warning, vcr_config_warning
from cassette_provider.pytest.model_fixture import model_failure_text
from cassette_provider.pytest.options import OPTION, legacy_marker_hint, mode_error
from cassette_provider.pytest.planning import split_options
from cassette_provider.pytest.reports import rerecord_line
from cassette_provider.pytest.wording import hints_for
from cassette_topology.errors import CASSETTE_AMBIGUOUS
from cassette_topology.sessions.errors import SESSION_MIXED
from support.paths import ROOT

PAGE = (ROOT / "docs" / "troubleshooting.md").read_text("utf-8")
PATH = Path("<path>")
RECORD = "pytest --subagent-cassette-mode=once <test id>"


class _Coded(Exception):
    """An error with a code, as the hints and reports read it."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


async def _plain_string_refusal() -> str:
    provider = FunctionProvider("<name>", lambda _request, _child: "text")
    run = await provider.start(StartRequest(prompt=[], parent=SimpleAgent()))
    with pytest.raises(CassetteError) as refused:
        await run.result
    return str(refused.value)


def _unknown_option() -> str:
    with pytest.raises(pytest.fail.Exception) as failed:
        split_options({"<names>": 1}, frozenset(), frozenset())
    return str(failed.value)


def _hint(message: str, code: str, **context: object) -> str:
    (hint,) = hints_for(_Coded(message, code), **context)  # type: ignore[arg-type]
    return f"hint: {hint}"


def _stale_seal() -> str:
    """The truncated-seal message up to its `rm` (the page writes the path as a placeholder)."""
    seal = TailSeal("<id>", 2, "sha256:" + "0" * 64)
    problem = SealCheck("<path>.seal", seal, 1, "sha256:" + "1" * 64).problem("<id>")
    assert problem is not None
    return (
        _until(problem.message, "its seal is stale: rm ")
        .replace("2 interactions", "<N> interactions")
        .replace("holds 1 (1 missing", "holds <M> (<N-M> missing")
    )


def _until(text: str, end: str) -> str:
    """`text` up to and including `end` (where the page writes `...`)."""
    return text[: text.index(end) + len(end)]


def _messages() -> list[tuple[str, str]]:
    second_root = "cassette observed more than one top-level parent"
    no_upstream = 'no upstream subagent provider registered for "spawn"'
    anonymous = model_failure_text("record", _Coded("...", SESSION_MIXED)).splitlines()[1]
    return [
        ("missing cassette", missing_cassette_message(PATH, RECORD)),
        (
            "header-only cassette",
            _until(empty_cassette_message(PATH, RECORD), "record it again with: "),
        ),
        (
            "failed recording",
            not_committed_note(PATH, None, existed=True, command=RECORD).splitlines()[0],
        ),
        (
            "no call recorded",
            _until(no_call_message(PATH, "cassette", RECORD), 'the provider "cassette". '),
        ),
        (
            "upstream name",
            _until(
                _hint(no_upstream, NO_UPSTREAM, registered=("my-agents",), upstream="spawn"),
                "records through (the default is",
            ),
        ),
        ("second root", _until(_hint(second_root, CASSETTE_AMBIGUOUS), "parent object, ")),
        ("legacy marker", legacy_marker_hint()),
        ("unknown option", _unknown_option()),
        ("--record-mode", record_mode_warning("<mode>", False, OPTION) or ""),
        ("vcr_config", vcr_config_warning({"record_mode": "all"}, {}) or ""),
        ("anonymous parent", _until(anonymous, "have no session of their own; ")),
        ("stale seal", _stale_seal()),
        ("record mode", mode_error("<value>", "<where>")),
        ("create over a file", _until(_EXISTS_HINT, "(the default), ")),
        ("re-record", rerecord_line("pytest --subagent-cassette-mode=rewrite <test id>")),
    ]


@pytest.mark.parametrize(("trap", "message"), _messages(), ids=lambda value: str(value)[:24])
def test_the_page_lists_the_message(trap: str, message: str) -> None:
    assert message, trap
    assert message.strip() in PAGE, f"{trap}: {message!r}"


async def test_the_page_lists_the_plain_string_refusal() -> None:
    assert await _plain_string_refusal() in PAGE


def test_a_changed_message_is_caught() -> None:
    changed = missing_cassette_message(PATH, RECORD).replace("record it with", "record with")
    assert changed not in PAGE
