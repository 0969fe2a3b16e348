"""Covered subtrees: what a delivered call made counts as consumed, nothing else (issue 12).

Replay hands back a matched child's recorded result without re-running it, so the calls that
child made (its whole subtree by parentKey) are never asked for. By default they are covered:
consumed for MATCH-4, shown as covered in DIAG-3/DIAG-5, and still matched exactly (MATCH-2)
should a live call reach them. `strict_subtrees=True` is the reference's MATCH-4.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import pytest
from cassette_format import parse_cassette
from cassette_format.records import CassetteInteraction
from cassette_topology.diagnostics import MismatchDiagnostic
from cassette_topology.errors import CASSETTE_MISMATCH, INVALID_CONFIG
from cassette_topology.live import LiveCall, LiveParent
from cassette_topology.matcher import InteractionMatcher
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success
from support.paths import INTEROP
from topology.builders import call, cassette, interaction, live_request

ROOT = LiveParent("live-root")


def request_of(index: int) -> dict[str, object]:
    return live_request(f"n{index}", f"prompt {index}")


def tree_of(parents: Sequence[int | None]) -> list[CassetteInteraction]:
    """Node i is a call of node parents[i] (None: of the root); parents come first."""
    nodes: list[CassetteInteraction] = []
    for index, parent in enumerate(parents):
        parent_key = "root" if parent is None else nodes[parent].call_key
        nodes.append(interaction(index + 1, request_of(index), parent_key=parent_key))
    return nodes


def matcher_of(nodes: Sequence[CassetteInteraction], **options: object) -> InteractionMatcher:
    built = InteractionMatcher.build(cassette(nodes), **options)
    assert isinstance(built, Success), built
    matcher: InteractionMatcher = built.unwrap()
    return matcher


def adopt(matcher: InteractionMatcher, live_id: str, key: str) -> LiveParent:
    """A live parent standing for a recorded call key.

    Replay never registers children (TOPO-6), so no live call reaches a nested key through
    the public API today; this reaches that state directly, to show matching there is exact.
    """
    matcher._tracker.register_local_child(live_id, key).unwrap()
    return LiveParent(live_id, origin="subagent")


# root -> review -> fact-check -> source; root -> deploy (a sibling, not nested)
CHAIN = tree_of([None, 0, 1, None])
REVIEW, FACT_CHECK, SOURCE, DEPLOY = CHAIN


def test_a_delivered_child_covers_its_whole_subtree() -> None:  # MATCH-4, issue 12
    matcher = matcher_of(CHAIN)
    assert isinstance(matcher.match(call(request_of(0), ROOT)), Success)
    assert [item.call_key for item in matcher.covered()] == [FACT_CHECK.call_key, SOURCE.call_key]
    assert matcher.is_covered(SOURCE.call_key)
    assert not matcher.is_consumed(SOURCE.call_key)
    assert (matcher.consumed_count, matcher.covered_count, matcher.remaining_count) == (1, 2, 1)
    # The undelivered sibling is still owed a live call, and it alone is named.
    refused = matcher.assert_consumed()
    assert isinstance(refused, Failure)
    assert refused.failure().message == (
        f"1 cassette interaction(s) were not consumed: {DEPLOY.call_key}"
    )
    assert isinstance(matcher.match(call(request_of(3), ROOT)), Success)
    assert matcher.assert_consumed() == Success(None)


def test_strict_subtrees_keeps_the_reference_check() -> None:  # MATCH-4
    matcher = matcher_of(CHAIN, strict_subtrees=True)
    for index in (0, 3):
        assert isinstance(matcher.match(call(request_of(index), ROOT)), Success)
    assert (matcher.covered(), matcher.covered_count, matcher.remaining_count) == ((), 0, 2)
    refused = matcher.assert_consumed()
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_MISMATCH
    assert refused.failure().message == (
        f"2 cassette interaction(s) were not consumed: {FACT_CHECK.call_key}, {SOURCE.call_key}"
    )


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_strict_subtrees_must_be_a_boolean(value: object) -> None:  # GAP-13
    refused = InteractionMatcher.build(cassette(CHAIN), strict_subtrees=value)
    assert isinstance(refused, Failure)
    assert refused.failure().code == INVALID_CONFIG
    assert refused.failure().message == "strictSubtrees must be a boolean"


def test_nothing_is_covered_before_a_delivery_and_state_shows_covering() -> None:
    matcher = matcher_of(CHAIN)
    before = matcher.state()
    assert before.covered == frozenset()
    assert matcher.assert_consumed().failure().message.startswith("4 cassette interaction(s)")
    matcher.match(call(request_of(0), ROOT)).unwrap()
    after = matcher.state()
    assert after.covered == {FACT_CHECK.call_key, SOURCE.call_key}
    assert after.consumed == {REVIEW.call_key}


def test_a_live_call_under_a_covered_key_is_still_matched_exactly() -> None:  # MATCH-2, DIAG-2
    matcher = matcher_of(CHAIN)
    matcher.match(call(request_of(0), ROOT)).unwrap()
    child = adopt(matcher, "live-review", REVIEW.call_key)
    changed = matcher.match(call(live_request("n1", "prompt 1, changed"), child))
    assert isinstance(changed, Failure)
    diagnostic = changed.failure().diagnostic
    assert isinstance(diagnostic, MismatchDiagnostic)
    assert diagnostic.reason == "request-changed"
    (candidate,) = diagnostic.candidates
    assert (candidate.call_key, candidate.consumed, candidate.covered) == (
        FACT_CHECK.call_key,
        False,
        True,
    )
    assert f"candidate calls: {FACT_CHECK.call_key} (covered)" in changed.failure().message
    assert matcher.covered_count == 2  # a refused call changes nothing

    exact = matcher.match(call(request_of(1), child))
    assert exact.map(lambda item: item.call_key) == Success(FACT_CHECK.call_key)
    assert matcher.is_consumed(FACT_CHECK.call_key)
    assert not matcher.is_covered(FACT_CHECK.call_key)
    assert (matcher.consumed_count, matcher.covered_count, matcher.remaining_count) == (2, 1, 1)
    again = matcher.match(call(request_of(1), child))
    assert isinstance(again, Failure)
    assert again.failure().diagnostic.reason == "group-exhausted"


def test_diagnostic_documents_mark_covered_candidates_only() -> None:  # DIAG-3
    matcher = matcher_of(CHAIN)
    matcher.match(call(request_of(0), ROOT)).unwrap()
    leaf = adopt(matcher, "live-source", SOURCE.call_key)  # nothing recorded beneath it
    failed = matcher.match(call(request_of(9), leaf))
    diagnostic = failed.failure().diagnostic
    assert isinstance(diagnostic, MismatchDiagnostic)
    assert diagnostic.reason == "parent-not-found"
    documents = [candidate.as_document() for candidate in diagnostic.candidates]
    assert [d["callKey"] for d in documents] == [item.call_key for item in CHAIN]
    assert [d["consumed"] for d in documents] == [True, False, False, False]
    assert [d.get("covered") for d in documents] == [None, True, True, None]
    # The reference shape (DIAG-3) is unchanged for everything not covered.
    assert list(documents[0]) == [
        "sequence",
        "callKey",
        "parentKey",
        "parentContextFingerprint",
        "occurrence",
        "requestFingerprint",
        "requestMetadata",
        "consumed",
    ]
    assert list(documents[1])[-1] == "covered"
    sample = f"{REVIEW.call_key} (consumed), {FACT_CHECK.call_key} (covered), "
    assert sample + f"{SOURCE.call_key} (covered)" in failed.failure().message


def test_a_chain_deeper_than_the_recursion_limit_is_covered() -> None:  # no recursion
    depth = 2_500
    nodes = tree_of([None, *range(depth - 1)])
    matcher = matcher_of(nodes)
    matcher.match(call(request_of(0), ROOT)).unwrap()
    assert matcher.covered_count == depth - 1
    assert matcher.assert_consumed() == Success(None)


def test_calls_under_an_unrecorded_parent_are_never_covered() -> None:  # MATCH-4
    orphan = interaction(1, request_of(1), parent_key="root/x-000000000000~1")
    nested = interaction(2, request_of(2), parent_key=orphan.call_key)
    (root_call,) = tree_of([None])
    matcher = matcher_of([orphan, nested, root_call])
    matcher.match(call(request_of(0), ROOT)).unwrap()
    assert matcher.covered() == ()
    assert matcher.assert_consumed().failure().message == (
        f"2 cassette interaction(s) were not consumed: {orphan.call_key}, {nested.call_key}"
    )


def test_a_cycle_of_parent_keys_ends() -> None:
    # Only a hand-made file has one (keys are not checked against their parents).
    first, second, third, leaf = tree_of([None, 0, 1, 2])
    first = dataclasses.replace(first, parent_key=third.call_key)  # first -> second -> third
    matcher = matcher_of([first, second, third, leaf])
    parent = adopt(matcher, "live-third", third.call_key)
    matcher.match(call(request_of(0), parent)).unwrap()
    assert [item.call_key for item in matcher.covered()] == [
        second.call_key,
        third.call_key,
        leaf.call_key,
    ]
    assert matcher.assert_consumed() == Success(None)


# A random call tree: node i's parent is None (the root) or an earlier node.
trees = st.integers(1, 12).flatmap(
    lambda size: st.tuples(
        *(
            st.one_of(st.none(), st.integers(0, index - 1)) if index else st.none()
            for index in range(size)
        )
    )
)


def ancestors(parents: Sequence[int | None], index: int) -> set[int]:
    found: set[int] = set()
    parent = parents[index]
    while parent is not None:
        found.add(parent)
        parent = parents[parent]
    return found


def deliver(
    matcher: InteractionMatcher, nodes: Sequence[CassetteInteraction], order: Sequence[int]
) -> list[object]:
    """Match each node in `order` from a live parent standing for its recorded parent."""
    results: list[object] = []
    for index in order:
        key = nodes[index].parent_key
        parent = ROOT if key == "root" else adopt(matcher, f"live-{key}", key)
        matched = matcher.match(call(request_of(index), parent))
        results.append(matched.map(lambda item: item.call_key).value_or(None))
    return results


@given(trees, st.data())
def test_covered_is_exactly_the_descendants_of_delivered_calls(parents, data) -> None:  # type: ignore[no-untyped-def]  # MATCH-4
    nodes = tree_of(parents)
    order = data.draw(
        st.permutations(range(len(nodes))).flatmap(
            lambda perm: st.integers(0, len(perm)).map(lambda n: perm[:n])
        )
    )
    matcher = matcher_of(nodes)
    strict = matcher_of(nodes, strict_subtrees=True)
    # Covering never changes a lookup: both matchers serve the same calls, nothing fuzzy.
    assert deliver(matcher, nodes, order) == deliver(strict, nodes, order)
    delivered = set(order)
    expected = {
        nodes[i].call_key
        for i in range(len(nodes))
        if i not in delivered and ancestors(parents, i) & delivered
    }
    assert {item.call_key for item in matcher.covered()} == expected
    assert matcher.state().covered == expected
    assert matcher.covered_count == len(expected)
    assert matcher.consumed_count == len(delivered) == strict.consumed_count
    assert matcher.remaining_count == len(nodes) - len(delivered) - len(expected)
    assert isinstance(
        matcher.assert_consumed(), Success if not matcher.remaining_count else Failure
    )
    assert strict.covered() == ()
    assert isinstance(
        strict.assert_consumed(), Success if delivered == set(range(len(nodes))) else Failure
    )


def reaches_root(parents: dict[str, str], key: str) -> bool:
    """Whether following parent keys from `key` ends at `root` (not at an unrecorded key)."""
    seen: set[str] = set()
    while key in parents and key not in seen:
        seen.add(key)
        key = parents[key]
    return key == "root"


def test_reference_cassettes_replay_fully_once_their_root_calls_are_delivered() -> None:
    """Over the interop corpus: delivering every root call covers each nested interaction."""
    manifest = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))
    nested_seen = 0
    for case in manifest["cases"]:
        if case["type"] != "cassette" or case["verdict"] != "valid":
            continue
        (relative,) = case["files"]
        loaded = parse_cassette((INTEROP / relative).read_bytes(), relative).unwrap()
        parents = {item.call_key: item.parent_key for item in loaded.interactions}
        matcher = InteractionMatcher.build(
            loaded, duplicate_policy="sequence", allow_redacted_replay=True
        ).unwrap()
        roots = [item for item in loaded.interactions if item.parent_key == "root"]
        for item in roots:
            live = LiveCall(ROOT, item.parent_context_fingerprint, item.request_fingerprint, {})
            assert isinstance(matcher.match(live), Success), relative
        orphans = [i.call_key for i in loaded.interactions if not reaches_root(parents, i.call_key)]
        nested_seen += len(loaded.interactions) - len(roots) - len(orphans)
        assert matcher.covered_count == len(loaded.interactions) - len(roots) - len(orphans)
        assert matcher.remaining_count == len(orphans), relative
    assert nested_seen > 0  # the corpus does hold nested calls
