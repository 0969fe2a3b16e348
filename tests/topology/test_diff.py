"""diff_cassettes beyond the interop pairs: ordering, categories, issues, disclosure (DIFF-*)."""

import json
from typing import Any

from cassette_topology import diff_cassettes
from cassette_topology.diff import CassetteDiff
from topology.builders import (
    cassette,
    error_outcome,
    interaction,
    live_request,
    text_outcome,
)

CANARY = "CANARY-diff-91"


def document_of(diff: CassetteDiff) -> Any:
    """The diff's plain-data document, untyped: these tests read it by JSON path."""
    return diff.as_document()


def test_identities_sort_by_utf16_code_units() -> None:  # DIFF-1, CANON-3
    # U+10000 is a surrogate pair (0xD800...) in UTF-16, so it sorts before U+FFFF.
    astral, bmp = "root/\U00010000", "root/\uffff"
    documents = [
        interaction(1, live_request("a", "a"), parent_key=bmp),
        interaction(2, live_request("a", "a"), parent_key=astral),
    ]
    document = document_of(diff_cassettes(cassette([]), cassette(documents)))
    assert [call["parentKey"] for call in document["added"]] == [astral, bmp]


def test_occurrences_sort_numerically() -> None:  # DIFF-1
    request = live_request("a", "a")
    same = text_outcome("same")
    documents = [
        interaction(i, request, occurrence=occurrence, outcome=same)
        for i, occurrence in enumerate([10, 2, 1, 3, 4, 5, 6, 7, 8, 9], start=1)
    ]
    document = document_of(diff_cassettes(cassette(documents), cassette([])))
    assert [call["occurrence"] for call in document["removed"]] == list(range(1, 11))


def test_summaries_show_categories_never_bodies() -> None:  # DIFF-5, DIFF-7, FMT-20
    request = live_request("secretive", f"{CANARY} prompt")
    expected = cassette(
        [
            interaction(1, request, outcome=text_outcome(f"{CANARY} a", f"{CANARY} stop")),
            interaction(2, live_request("b", "b"), outcome=error_outcome("result-error", CANARY)),
        ],
        requestStorage="full",
    )
    actual = cassette(
        [
            interaction(1, request, outcome=text_outcome(f"{CANARY} b", "max-tokens")),
            interaction(2, live_request("b", "b"), outcome=error_outcome("start-error", CANARY)),
        ]
    )
    diff = diff_cassettes(expected, actual)
    document = document_of(diff)
    assert CANARY not in json.dumps(document)
    changes = {
        change["expected"]["callKey"]: (change["expected"], change["actual"])
        for change in document["outcomeChanged"]
    }
    assert len(changes) == 2
    stops = sorted(
        (old["outcomeKind"], new["outcomeKind"], old.get("stopReason"), new.get("stopReason"))
        for old, new in changes.values()
    )
    assert stops == [
        ("result", "result", "other", "max-tokens"),
        ("result-error", "start-error", None, None),
    ]
    assert document["policyChanges"] == ["requestStorage"]
    assert diff.comparable
    assert not diff.equivalent
    # start-error is unpublished while the recorded result-error was published
    assert [change["fields"] for change in document["boundaryChanged"]] == [["published"]]


def test_ambiguity_and_inheritance_make_inputs_not_comparable() -> None:  # DIFF-3, FMT-19
    request = live_request("a", "a")
    ambiguous = cassette(
        [
            interaction(1, request, outcome=text_outcome("x", redactions=0)),
            interaction(2, request, outcome=text_outcome("x", redactions=1), occurrence=2),
        ],
        inheritsParentContext=True,
    )
    document = document_of(diff_cassettes(ambiguous, ambiguous))
    assert document["issues"] == [
        "expected-ambiguous-duplicate-groups",
        "actual-ambiguous-duplicate-groups",
    ]
    assert (document["expectedAmbiguousGroups"], document["actualAmbiguousGroups"]) == (1, 1)
    assert (document["comparable"], document["equivalent"]) == (False, False)
    changed = diff_cassettes(cassette([]), cassette([], inheritsParentContext=True))
    assert changed.as_document()["issues"] == ["parent-context-semantics-changed"]
    assert changed.policy_changes == ("provider.inheritsParentContext",)


def test_timing_deltas_are_actual_minus_expected() -> None:  # DIFF-6
    request = live_request("a", "a")
    same = text_outcome("same")
    expected = cassette(
        [interaction(1, request, outcome=same, start_latency_ms=1.5, duration_ms=10.25)]
    )
    actual = cassette(
        [interaction(7, request, outcome=same, start_latency_ms=2.5, duration_ms=10.0)]
    )
    diff = diff_cassettes(expected, actual)
    assert diff.equivalent
    (entry,) = document_of(diff)["timing"]
    assert list(entry)[-8:] == [
        "expectedCallKey",
        "actualCallKey",
        "expectedStartLatencyMs",
        "actualStartLatencyMs",
        "startLatencyDeltaMs",
        "expectedDurationMs",
        "actualDurationMs",
        "deltaMs",
    ]
    assert (entry["startLatencyDeltaMs"], entry["deltaMs"]) == (1, -0.25)
    assert json.dumps(entry["startLatencyDeltaMs"]) == "1"  # as JSON.stringify prints 1.0
