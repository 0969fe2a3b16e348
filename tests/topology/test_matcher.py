"""InteractionMatcher: construction, matching, duplicates, diagnostics (MATCH-*, DIAG-*)."""

from collections.abc import Sequence

import pytest
from cassette_format.records import CassetteInteraction
from cassette_topology.diagnostics import MatchDiagnostic, MismatchDiagnostic
from cassette_topology.errors import (
    CASSETTE_AMBIGUOUS,
    CASSETTE_MISMATCH,
    INVALID_CONFIG,
    TopologyError,
)
from cassette_topology.live import LiveParent
from cassette_topology.matcher import InteractionMatcher
from returns.result import Failure, Result, Success
from support.json_path import json_at
from topology.builders import (
    OTHER_CONTEXT,
    call,
    cassette,
    error_outcome,
    interaction,
    live_request,
    text_outcome,
)

AUDIT = live_request("audit", "prompt:audit")
REVIEW = live_request("review", "prompt:review")


def build(
    documents: Sequence[CassetteInteraction], **options: object
) -> Result[InteractionMatcher, TopologyError]:
    return InteractionMatcher.build(cassette(documents), **options)


def matcher_of(documents: Sequence[CassetteInteraction], **options: object) -> InteractionMatcher:
    built = build(documents, **options)
    assert isinstance(built, Success), built
    matcher: InteractionMatcher = built.unwrap()
    return matcher


def mismatch_of(result: Result[CassetteInteraction, TopologyError]) -> MismatchDiagnostic:
    assert isinstance(result, Failure)
    error = result.failure()
    assert error.code == CASSETTE_MISMATCH
    assert isinstance(error.diagnostic, MismatchDiagnostic)
    return error.diagnostic


def test_match_consumes_and_returns_the_recorded_interaction() -> None:  # MATCH-2
    matcher = matcher_of([interaction(1, AUDIT), interaction(2, REVIEW)])
    review = matcher.match(call(REVIEW))
    assert review.map(lambda record: record.sequence) == Success(2)
    assert matcher.is_consumed(review.unwrap().call_key)
    assert (matcher.consumed_count, matcher.remaining_count) == (1, 1)


def test_group_exhausted_after_the_last_occurrence() -> None:  # DIAG-2 row 1, DIAG-5
    matcher = matcher_of([interaction(1, AUDIT)])
    assert isinstance(matcher.match(call(AUDIT)), Success)
    failed = matcher.match(call(AUDIT))
    diagnostic = mismatch_of(failed)
    assert diagnostic.reason == "group-exhausted"
    assert [c.consumed for c in diagnostic.candidates] == [True]
    key = diagnostic.candidates[0].call_key
    assert failed.failure().message == (
        'cassette interaction group for parent "root", label "audit" has exhausted all '
        f"1 recorded occurrence(s); recorded calls: {key} (consumed)"
    )


def test_parent_not_found_lists_every_interaction_in_sequence_order() -> None:  # DIAG-2 row 2
    documents = [
        interaction(2, REVIEW, parent_key="root/x-000000000000~1"),
        interaction(1, AUDIT, parent_key="root/x-000000000000~1"),
    ]
    matcher = matcher_of(documents)
    diagnostic = mismatch_of(matcher.match(call(AUDIT)))
    assert diagnostic.reason == "parent-not-found"
    assert [c.sequence for c in diagnostic.candidates] == [1, 2]


def test_parent_context_changed() -> None:  # DIAG-2 row 3
    matcher = matcher_of([interaction(1, AUDIT), interaction(2, REVIEW)])
    diagnostic = mismatch_of(matcher.match(call(AUDIT, context=OTHER_CONTEXT)))
    assert diagnostic.reason == "parent-context-changed"
    assert [c.sequence for c in diagnostic.candidates] == [1]


def test_request_changed() -> None:  # DIAG-2 row 4, DIAG-5
    matcher = matcher_of([interaction(1, AUDIT), interaction(2, REVIEW)])
    changed = live_request("audit", "prompt:audit v2")
    failed = matcher.match(call(changed))
    diagnostic = mismatch_of(failed)
    assert diagnostic.reason == "request-changed"
    assert [c.sequence for c in diagnostic.candidates] == [1, 2]
    message = failed.failure().message
    assert message.startswith('no cassette interaction matches parent "root", label "audit", ')
    request = diagnostic.actual.group.request_fingerprint
    assert f"request {request}; diagnosis: request-changed;" in message
    assert "(available)" in message


def test_parent_and_request_changed() -> None:  # DIAG-2 row 5, DIAG-5
    matcher = matcher_of([interaction(1, AUDIT), interaction(2, REVIEW)])
    unlabelled = live_request(None, "something else")
    failed = matcher.match(call(unlabelled, context=OTHER_CONTEXT))
    diagnostic = mismatch_of(failed)
    assert diagnostic.reason == "parent-and-request-changed"
    assert [c.sequence for c in diagnostic.candidates] == [1, 2]
    assert ", label <unlabelled>, " in failed.failure().message


def test_empty_cassette_reports_no_candidates() -> None:  # DIAG-2 row 2, DIAG-5
    failed = matcher_of([]).match(call(AUDIT))
    assert mismatch_of(failed).reason == "parent-not-found"
    assert failed.failure().message.endswith("candidate calls: none")


def test_message_samples_at_most_three_candidates() -> None:  # DIAG-5
    documents = [interaction(i, live_request("audit", f"p{i}")) for i in range(1, 6)]
    failed = matcher_of(documents).match(call(AUDIT))
    assert failed.failure().message.count("(available)") == 3


def test_diagnose_reports_a_match_without_consuming() -> None:  # DIAG-1
    matcher = matcher_of([interaction(1, AUDIT)])
    before = matcher.state()
    probed = matcher.diagnose(call(AUDIT, LiveParent("probe-one")))
    diagnostic = probed.unwrap()
    assert isinstance(diagnostic, MatchDiagnostic)
    assert diagnostic.candidate.consumed is False
    assert matcher.state() == before
    # The probe did not become the root: another parent id can still match.
    assert isinstance(matcher.match(call(AUDIT, LiveParent("real-root"))), Success)


def test_a_matched_root_is_committed() -> None:  # MATCH-2, TOPO-2 case 4
    matcher = matcher_of([interaction(1, AUDIT), interaction(2, REVIEW)])
    assert isinstance(matcher.match(call(AUDIT, LiveParent("a"))), Success)
    refused = matcher.match(call(REVIEW, LiveParent("b")))
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_AMBIGUOUS
    assert matcher.remaining_count == 1


def test_a_failed_match_does_not_commit_the_root() -> None:  # MATCH-2
    matcher = matcher_of([interaction(1, AUDIT)])
    assert isinstance(matcher.match(call(REVIEW, LiveParent("wrong-root"))), Failure)
    assert isinstance(matcher.match(call(AUDIT, LiveParent("right-root"))), Success)


def test_replay_rejects_every_subagent_parent() -> None:  # TOPO-6
    matcher = matcher_of([interaction(1, AUDIT, parent_key="root/a-000000000000~1")])
    refused = matcher.match(call(AUDIT, LiveParent("child", origin="subagent")))
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_AMBIGUOUS


def test_identical_duplicates_are_allowed_under_reject() -> None:  # MATCH-3
    same = text_outcome("same")
    matcher = matcher_of(
        [interaction(1, AUDIT, outcome=same), interaction(2, AUDIT, outcome=same, occurrence=2)]
    )
    assert isinstance(matcher.match(call(AUDIT)), Success)
    assert isinstance(matcher.match(call(AUDIT)), Success)
    assert mismatch_of(matcher.match(call(AUDIT))).reason == "group-exhausted"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (text_outcome("one"), text_outcome("two")),
        (text_outcome("same"), error_outcome("result-error", "boom")),
        # FMT-19: outcomes that differ only in their redaction count are different outcomes
        (text_outcome("same", redactions=0), text_outcome("same", redactions=1)),
    ],
)
def test_ambiguous_groups_refuse_construction_under_reject(first, second) -> None:  # type: ignore[no-untyped-def]  # MATCH-1, FMT-19
    documents = [
        interaction(1, AUDIT, outcome=first),
        interaction(2, AUDIT, outcome=second, occurrence=2),
        interaction(3, REVIEW),
    ]
    refused = build(documents, allow_redacted_replay=True)
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_AMBIGUOUS
    assert refused.failure().message == (
        "cassette has 1 duplicate request group(s) with different outcomes; add stable "
        'labels/prompts or set duplicatePolicy to "sequence" explicitly'
    )


def test_sequence_policy_replays_duplicates_in_occurrence_order() -> None:  # MATCH-1, MATCH-3
    documents = [
        interaction(1, AUDIT, outcome=text_outcome("second"), occurrence=2),
        interaction(2, AUDIT, outcome=text_outcome("first"), occurrence=1),
    ]
    matcher = matcher_of(documents, duplicate_policy="sequence")
    texts = [
        json_at(
            matcher.match(call(AUDIT)).unwrap().to_json(), "outcome", "result", "output", 0, "text"
        )
        for _ in range(2)
    ]
    assert texts == ["first", "second"]


def test_redacted_result_is_refused_unless_allowed() -> None:  # MATCH-1
    documents = [
        interaction(2, REVIEW),
        interaction(1, AUDIT, outcome=text_outcome("x", redactions=2)),
        interaction(3, live_request("z", "z"), outcome=text_outcome("y", redactions=1)),
    ]
    refused = build(documents)
    assert isinstance(refused, Failure)
    key = documents[1].call_key
    assert refused.failure().code == CASSETTE_MISMATCH
    assert refused.failure().message == (
        f'interaction "{key}" contains a redacted result; '
        "set allowRedactedReplay only if substituted output is acceptable"
    )
    assert isinstance(build(documents, allow_redacted_replay=True), Success)


@pytest.mark.parametrize(
    "options",
    [
        {"duplicate_policy": "first"},
        {"duplicate_policy": None},
        {"allow_redacted_replay": "yes"},
        {"allow_redacted_replay": 1},
    ],
)
def test_invalid_options_are_invalid_config(options) -> None:  # type: ignore[no-untyped-def]  # GAP-13
    refused = build([interaction(1, AUDIT)], **options)
    assert isinstance(refused, Failure)
    assert refused.failure().code == INVALID_CONFIG


def test_assert_consumed_names_the_first_five_in_physical_order() -> None:  # MATCH-4
    documents = [interaction(8 - i, live_request(f"l{i}", f"p{i}")) for i in range(7)]
    matcher = matcher_of(documents)
    assert isinstance(matcher.match(call(live_request("l0", "p0"))), Success)
    failed = matcher.assert_consumed()
    assert isinstance(failed, Failure)
    keys = [item.call_key for item in documents[1:6]]
    assert failed.failure().code == CASSETTE_MISMATCH
    assert failed.failure().diagnostic is None
    assert failed.failure().message == (
        f"6 cassette interaction(s) were not consumed: {', '.join(keys)}"
    )
    for request in [live_request(f"l{i}", f"p{i}") for i in range(1, 7)]:
        matcher.match(call(request))
    assert matcher.assert_consumed() == Success(None)


def test_full_storage_candidates_derive_metadata_from_the_stored_value() -> None:  # DIAG-4
    request = live_request(
        "audit",
        "prompt:audit",
        agentOptions={"provider": "deepseek", "model": "m1", "secret": "x"},
        maxDepth=2,
        toolFilter={"allow": ["read"]},
        persona="p",
    )
    matcher = matcher_of([interaction(1, request, storage="full")])
    diagnostic = mismatch_of(matcher.match(call(AUDIT)))
    assert diagnostic.candidates[0].request_metadata.to_json() == {
        "label": "audit",
        "promptBlocks": 1,
        "promptBytes": 39,
        "hasOutputSchema": False,
        "maxDepth": 2,
        "childProvider": "deepseek",
        "childModel": "m1",
        "toolFilter": {"allow": ["read"]},
        "hasPersona": True,
    }
