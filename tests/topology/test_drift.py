"""The drift report: one kind per identity, changed members named, never values (issue 25)."""

from __future__ import annotations

import json

import pytest
from cassette_format.records import CassetteInteraction
from cassette_topology.closest import counterpart, lead_line
from cassette_topology.diagnostics import MismatchDiagnostic
from cassette_topology.drift import DRIFT_KINDS, DriftReport, drift_report
from cassette_topology.drift_terms import entry_details
from cassette_topology.matcher import InteractionMatcher
from cassette_topology.member_paths import MEMBER_PATH_LIMIT, differing_paths
from topology.builders import (
    OTHER_CONTEXT,
    call,
    cassette,
    error_outcome,
    interaction,
    live_request,
    text_outcome,
)

CANARY = "CANARY-drift-77"


def three(storage: str, *, changed: str = "") -> list[CassetteInteraction]:
    """alpha, beta, gamma under the root; `changed` names the one whose prompt grew."""
    return [
        interaction(
            number,
            live_request(label, f"{CANARY} {label} prompt{' more' if label == changed else ''}"),
            storage=storage,
        )
        for number, label in enumerate(("alpha", "beta", "gamma"), start=1)
    ]


def refreshed(storage: str) -> list[CassetteInteraction]:
    """beta's prompt changed, gamma no longer started, delta new."""
    kept = [item for item in three(storage, changed="beta") if "gamma" not in item.call_key]
    return [*kept, interaction(4, live_request("delta", f"{CANARY} delta"), storage=storage)]


def by_label(report: DriftReport) -> dict[str | None, str]:
    return {entry.label: entry.kind for entry in report.entries}


@pytest.mark.parametrize("storage", ["metadata", "full"])
def test_changed_dropped_and_new_children_each_get_their_kind(storage: str) -> None:
    report = drift_report(three(storage), refreshed(storage))
    assert by_label(report) == {
        "alpha": "unchanged",
        "beta": "request-changed",
        "gamma": "removed",
        "delta": "added",  # a new call with no counterpart is added, never "changed"
    }
    (beta,) = report.of_kind("request-changed")
    assert beta.request_members == ("promptBytes 54→59",)
    if storage == "full":
        assert beta.request_paths == ("prompt[0].text",)
    else:
        assert beta.request_paths == ()
    assert beta.expected is not None
    assert beta.actual is not None
    assert beta.expected.call_key != beta.actual.call_key
    counts = report.counts()
    assert list(counts) == list(DRIFT_KINDS)
    assert counts["unchanged"] == counts["added"] == counts["removed"] == 1
    assert CANARY not in json.dumps(report.as_document(), ensure_ascii=False)


def test_a_renamed_only_child_is_request_changed_but_a_new_sibling_is_added() -> None:
    old = [interaction(1, live_request("alpha", "a"))]
    renamed = drift_report(old, [interaction(1, live_request("alpha2", "a"))])
    (entry,) = renamed.entries
    assert entry.kind == "request-changed"
    assert entry.request_members == ('label "alpha"→"alpha2"',)
    siblings = [interaction(1, live_request("alpha", "a")), interaction(2, live_request("b", "b"))]
    grown = drift_report(
        siblings,
        [interaction(1, live_request("alpha", "a")), interaction(2, live_request("g", "g"))],
    )
    assert by_label(grown) == {"alpha": "unchanged", "b": "removed", "g": "added"}


def test_outcome_boundary_and_parent_context_changes() -> None:
    old = [
        interaction(1, live_request("a", "a"), outcome=text_outcome("x")),
        interaction(2, live_request("b", "b"), outcome=error_outcome("result-error", CANARY)),
        interaction(3, live_request("c", "c")),
    ]
    new = [
        interaction(1, live_request("a", "a"), outcome=text_outcome("y", "max-tokens")),
        interaction(
            2, live_request("b", "b"), outcome=error_outcome("result-error", CANARY), local=True
        ),
        interaction(3, live_request("c", "c"), context=OTHER_CONTEXT),
    ]
    report = drift_report(old, new)
    assert by_label(report) == {
        "a": "outcome-changed",
        "b": "boundary-changed",
        "c": "parent-context-changed",
    }
    assert entry_details(report.of_kind("outcome-changed")[0]) == (
        "outcome completed -> max-tokens",
    )
    (boundary,) = report.of_kind("boundary-changed")
    assert boundary.boundary_fields == ("local",)
    (context,) = report.of_kind("parent-context-changed")
    assert context.request_members == ()
    assert not context.outcome_changed


def test_an_outcome_change_within_one_category_says_so() -> None:
    old = [interaction(1, live_request("a", "a"), outcome=text_outcome("x"))]
    new = [interaction(1, live_request("a", "a"), outcome=text_outcome("y"))]
    (entry,) = drift_report(old, new).entries
    assert entry_details(entry) == ("outcome differs, still completed",)


def test_a_changed_parent_carries_its_unchanged_children_as_unchanged_under_new_keys() -> None:
    parent_old = interaction(1, live_request("review", "draft"))
    parent_new = interaction(1, live_request("review", "draft v2"))
    child = live_request("fact-check", "check")
    old = [parent_old, interaction(2, child, parent_key=parent_old.call_key)]
    new = [parent_new, interaction(2, child, parent_key=parent_new.call_key)]
    report = drift_report(old, new)
    # The child's identity moved with its parent's key; the call itself did not change.
    assert [(entry.kind, entry.call_key) for entry in report.entries] == [
        ("request-changed", parent_new.call_key),
        ("unchanged", new[1].call_key),
    ]


def test_member_paths_name_where_values_differ_never_the_values() -> None:
    before = {"prompt": [{"type": "text", "text": CANARY}], "agentOptions": {"a b": 1}}
    after = {
        "prompt": [{"type": "text", "text": "other"}, {"type": "text", "text": "x"}],
        "agentOptions": {"a b": True},
        "persona": "p",
    }
    found = differing_paths(before, after)
    assert found.paths == ("prompt[0].text", "prompt[1]", 'agentOptions["a b"]', "persona")
    many = differing_paths(list(range(MEMBER_PATH_LIMIT + 5)), [-1] * (MEMBER_PATH_LIMIT + 5))
    assert len(many.paths) == MEMBER_PATH_LIMIT
    assert many.more == 5


def test_deep_requests_are_walked_without_recursion() -> None:
    deep_old: object = "a"
    deep_new: object = "b"
    for _ in range(20_000):
        deep_old, deep_new = [deep_old], [deep_new]
    found = differing_paths(deep_old, deep_new)
    assert len(found.paths) == 1
    assert found.paths[0].endswith("[0]")


def _miss(recorded: list[CassetteInteraction], *replayed: str, live: str) -> MismatchDiagnostic:
    matcher = InteractionMatcher.build(cassette(recorded)).unwrap()
    for label in replayed:
        matcher.match(call(live_request(label, label))).unwrap()
    found = matcher.diagnose(call(live_request(live, live))).unwrap()
    assert isinstance(found, MismatchDiagnostic)
    return found


def test_replay_says_a_new_child_has_no_recording() -> None:
    recorded = [
        interaction(1, live_request("alpha", "alpha")),
        interaction(2, live_request("beta", "beta")),
    ]
    for replayed in [("alpha", "beta"), ()]:  # after its siblings, or first
        miss = _miss(recorded, *replayed, live="gamma")
        assert miss.reason == "request-changed"  # DIAG-2 keeps the reference's reason
        assert counterpart(miss) is None
        line = lead_line(miss)
        assert line.startswith('added: no recording for this call under parent "root"')
        assert 'label "gamma"' in line
        assert "not a changed one" in line


def test_replay_pairs_a_changed_child_by_label_and_an_only_child_whatever_its_label() -> None:
    recorded = [
        interaction(1, live_request("alpha", "alpha")),
        interaction(2, live_request("beta", "beta")),
    ]
    changed = matcher_lead(recorded, live_request("beta", "beta, longer"))
    assert changed.startswith("request-changed: closest root/beta-")
    assert changed.endswith("(available), promptBytes 31→39")
    only = [interaction(1, live_request("alpha", "alpha"))]
    renamed = _miss(only, live="omega")
    assert lead_line(renamed).startswith("request-changed: closest root/alpha-")
    assert 'label "alpha"→"omega"' in lead_line(renamed)


def matcher_lead(recorded: list[CassetteInteraction], request: dict[str, object]) -> str:
    matcher = InteractionMatcher.build(cassette(recorded)).unwrap()
    found = matcher.diagnose(call(request)).unwrap()
    assert isinstance(found, MismatchDiagnostic)
    return lead_line(found)
