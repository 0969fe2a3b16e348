"""A matcher over the lazy reader's index answers exactly as one over the loaded cassette.

`InteractionMatcher.build` takes a `CassetteFile` or cassette-format's `ReplayIndex`; over
the interop corpus every match, mismatch diagnostic (DIAG-2, DIAG-3, DIAG-5), refusal
(MATCH-1), covered tally and unconsumed report (MATCH-4) must be the same, the index
reading a line only when it delivers it or shows it as a candidate (issue 23).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cassette_format import interaction_line, read_cassette
from cassette_format.read.replay_index import read_replay_index
from cassette_format.records import CassetteInteraction
from cassette_topology.diagnostics import MatchDiagnostic, MismatchDiagnostic
from cassette_topology.errors import TopologyError
from cassette_topology.live import LiveCall, LiveParent
from cassette_topology.matcher import InteractionMatcher
from returns.result import Failure, Result, Success
from support.paths import INTEROP

OTHER = "sha256:" + "e" * 64


def _valid_cassettes() -> list[str]:
    manifest = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))
    return [
        case["files"][0]
        for case in manifest["cases"]
        if case["type"] == "cassette" and case["verdict"] == "valid"
    ]


def _outcome(result: Result[object, TopologyError]) -> object:
    """What a matcher step answered, as comparable plain data."""
    match result:
        case Success(CassetteInteraction() as item):
            return interaction_line(item).unwrap()
        case Success(MatchDiagnostic() | MismatchDiagnostic() as diagnostic):
            return diagnostic.as_document()
        case Success(InteractionMatcher()):
            return "built"
        case Success(other):
            return other
        case Failure(error):
            diagnostic = error.diagnostic
            document = None if diagnostic is None else diagnostic.as_document()
            return (error.code, error.message, document)
    raise AssertionError(result)  # pragma: no cover


def _calls(loaded: tuple[CassetteInteraction, ...]) -> list[LiveCall]:
    """Each root call twice (the second exhausts or repeats), then three kinds of miss."""
    parent = LiveParent("live-root")
    calls: list[LiveCall] = []
    for item in loaded:
        if item.parent_key != "root":
            continue
        live = LiveCall(parent, item.parent_context_fingerprint, item.request_fingerprint, {})
        calls += [live, live]
        calls.append(LiveCall(parent, item.parent_context_fingerprint, OTHER, {}))
        calls.append(LiveCall(parent, OTHER, item.request_fingerprint, {}))
    calls.append(LiveCall(LiveParent("another-root"), OTHER, OTHER, {}))
    return calls


@pytest.mark.parametrize("relative", _valid_cassettes())
@pytest.mark.parametrize("policy", ["reject", "sequence"])
def test_the_index_matches_as_the_loaded_cassette_does(relative: str, policy: str) -> None:
    # MATCH-1..4, DIAG-2, DIAG-3, DIAG-5
    path = Path(INTEROP / relative)
    loaded = read_cassette(path).unwrap()
    index = read_replay_index(path).unwrap()
    options: dict[str, object] = {"duplicate_policy": policy, "allow_redacted_replay": True}
    whole = InteractionMatcher.build(loaded, **options)
    lazy = InteractionMatcher.build(index, **options)
    assert _outcome(lazy) == _outcome(whole)
    assert _outcome(InteractionMatcher.build(index)) == _outcome(InteractionMatcher.build(loaded))
    if not isinstance(whole, Success) or not isinstance(lazy, Success):
        return
    by_whole, by_index = whole.unwrap(), lazy.unwrap()
    for live in _calls(loaded.interactions):
        assert _outcome(by_index.diagnose(live)) == _outcome(by_whole.diagnose(live))
        assert _outcome(by_index.match(live)) == _outcome(by_whole.match(live))
    assert by_index.state() == by_whole.state()
    assert by_index.covered() == by_whole.covered()
    assert _outcome(by_index.assert_consumed()) == _outcome(by_whole.assert_consumed())
