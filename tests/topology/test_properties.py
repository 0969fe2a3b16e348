"""Properties: order independence, side-effect-free diagnosis, transactional failures, no leaks."""

import itertools
import json
from typing import Any

from cassette_format.records import CassetteInteraction
from cassette_topology.errors import TopologyError
from cassette_topology.live import LiveParent
from cassette_topology.matcher import InteractionMatcher
from cassette_topology.tracker import TopologyTracker
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Result, Success
from topology.builders import (
    OTHER_CONTEXT,
    call,
    cassette,
    error_outcome,
    interaction,
    live_request,
    text_outcome,
)

ALLOWLIST = {
    "label",
    "promptBlocks",
    "promptBytes",
    "hasOutputSchema",
    "maxDepth",
    "childProvider",
    "childModel",
    "toolFilter",
    "hasPersona",
}
CANARY = "CANARY-7f3a"

# A sibling is (request index, outcome index); equal request indexes are duplicates.
siblings = st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), min_size=1, max_size=6)


def outcome_for(index: int, sibling: int) -> dict[str, object]:
    if index == 2:
        return error_outcome("result-error", f"failed {sibling}")
    return text_outcome(f"outcome {index} of {sibling}", "completed" if index == 0 else "other")


def recorded(spec: list[tuple[int, int]]) -> tuple[list[CassetteInteraction], list[int]]:
    """Interaction documents in recording order, plus each one's request index."""
    occurrences: dict[int, int] = {}
    documents: list[CassetteInteraction] = []
    for sequence, (request_index, outcome_index) in enumerate(spec, start=1):
        occurrences[request_index] = occurrences.get(request_index, 0) + 1
        documents.append(
            interaction(
                sequence,
                live_request(f"sibling {request_index}", f"prompt {request_index}"),
                outcome=outcome_for(outcome_index, sequence),
                occurrence=occurrences[request_index],
            )
        )
    return documents, [request_index for request_index, _ in spec]


@given(siblings, st.randoms(use_true_random=False))
def test_every_start_order_yields_the_recorded_outcomes(spec, rng) -> None:  # type: ignore[no-untyped-def]  # MATCH-2, MATCH-3
    documents, requests = recorded(spec)
    # k-th live start of a request gets the k-th recorded occurrence, in any interleaving.
    expected: dict[tuple[int, int], object] = {}
    seen: dict[int, int] = {}
    for request_index, document in zip(requests, documents, strict=True):
        seen[request_index] = seen.get(request_index, 0) + 1
        expected[(request_index, seen[request_index])] = document.outcome
    orders = list(itertools.islice(itertools.permutations(range(len(requests))), 120))
    rng.shuffle(orders)
    for order in orders[:12]:
        matcher = InteractionMatcher.build(
            cassette(documents), duplicate_policy="sequence"
        ).unwrap()
        started: dict[int, int] = {}
        for position in order:
            request_index = requests[position]
            started[request_index] = started.get(request_index, 0) + 1
            request = live_request(f"sibling {request_index}", f"prompt {request_index}")
            matched = matcher.match(call(request))
            assert isinstance(matched, Success)
            outcome = matched.unwrap().outcome
            assert outcome == expected[(request_index, started[request_index])]
        assert matcher.assert_consumed() == Success(None)


probes = st.lists(
    st.tuples(
        st.integers(0, 4),  # request index (4 is never recorded)
        st.booleans(),  # other parent context
        st.sampled_from(["root-a", "root-b"]),  # live parent id
        st.booleans(),  # diagnose instead of match
    ),
    max_size=10,
)


@given(siblings, probes)
def test_diagnose_never_changes_state_and_failed_match_restores_it(spec, steps) -> None:  # type: ignore[no-untyped-def]  # DIAG-1, MATCH-2, TOPO-3
    documents, _ = recorded(spec)
    matcher = InteractionMatcher.build(cassette(documents), duplicate_policy="sequence").unwrap()
    for request_index, other_context, parent_id, only_diagnose in steps:
        live = call(
            live_request(f"sibling {request_index}", f"prompt {request_index}"),
            LiveParent(parent_id),
            OTHER_CONTEXT if other_context else {"options": {}, "session": {}},
        )
        before = matcher.state()
        if only_diagnose:
            matcher.diagnose(live)
            assert matcher.state() == before
            continue
        result = matcher.match(live)
        if isinstance(result, Failure):
            assert matcher.state() == before
        else:
            assert matcher.consumed_count == len(before.consumed) + 1


def canary_request(index: int) -> dict[str, object]:
    return live_request(
        f"label {index}",
        f"{CANARY} prompt {index}",
        persona=f"{CANARY} persona",
        agentOptions={"provider": "p", "model": "m", "apiKey": CANARY, "note": CANARY},
        outputSchema={"type": "object", "description": CANARY},
        toolFilter={"allow": ["read"], "deny": ["write"]},
    )


@given(st.lists(st.integers(0, 5), min_size=1, max_size=5), st.booleans(), st.integers(0, 6))
def test_candidates_show_only_allowlisted_metadata(indexes, full, probe) -> None:  # type: ignore[no-untyped-def]  # DIAG-4, DIAG-6
    documents = []
    for sequence, index in enumerate(sorted(set(indexes)), start=1):
        outcome = (
            text_outcome(f"{CANARY} result")
            if index % 2
            else error_outcome("start-error", f"{CANARY} error")
        )
        if outcome["kind"] == "start-error":
            outcome["error"]["code"] = CANARY  # type: ignore[index]
        documents.append(
            interaction(
                sequence,
                canary_request(index),
                outcome=outcome,
                storage="full" if full else "metadata",
            )
        )
    matcher = InteractionMatcher.build(cassette(documents)).unwrap()
    # An exact repeat of a recorded request matches; a changed prompt never does.
    for live in (call(canary_request(probe)), call(live_request(f"label {probe}", "changed"))):
        diagnosed = matcher.diagnose(live).unwrap()
        matched = matcher.match(live)
        if isinstance(matched, Failure):
            assert CANARY not in matched.failure().message
            assert matched.failure().diagnostic == diagnosed
        document: Any = diagnosed.as_document()  # plain data, read by JSON path below
        assert CANARY not in json.dumps(document)
        candidates = document.get("candidates", [document.get("candidate")])
        for candidate in candidates:
            assert set(candidate["requestMetadata"]) <= ALLOWLIST
            assert set(candidate["requestMetadata"].get("toolFilter", {})) <= {"allow", "deny"}


tracker_steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("reserve"),
            st.sampled_from(["root-a", "root-b", "child-1", "child-2"]),
            st.booleans(),  # parent claims subagent origin
            st.integers(0, 2),  # request index
            st.booleans(),  # request is not canonical
        ),
        st.tuples(
            st.just("register"),
            st.sampled_from(["child-1", "child-2"]),
            st.sampled_from(["root/a-1~1", "root/b-2~1"]),
        ),
    ),
    max_size=12,
)


@given(tracker_steps)
def test_a_refused_tracker_step_leaves_no_trace(steps) -> None:  # type: ignore[no-untyped-def]  # TOPO-3, TOPO-5
    tracker = TopologyTracker()
    for step in steps:
        before = tracker.snapshot()
        if step[0] == "reserve":
            _, parent_id, subagent, index, broken = step
            text: object = float("nan") if broken else f"prompt {index}"
            result: Result[object, TopologyError] = tracker.reserve_normalized(
                LiveParent(parent_id, "subagent" if subagent else None),
                {"label": "x", "prompt": [{"type": "text", "text": text}]},
                {"options": {}, "session": {}},
            )
        else:
            _, child_id, key = step
            result = tracker.register_local_child(child_id, key)
        if isinstance(result, Failure):
            assert tracker.snapshot() == before
        elif step[0] == "reserve":
            assert tracker.snapshot() != before
