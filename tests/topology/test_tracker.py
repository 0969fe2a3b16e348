"""TopologyTracker: root mapping, local children, the three rejections, transactions (TOPO-*)."""

from dataclasses import dataclass

from cassette_format.records.identity import CallGroup, CallIdentity
from cassette_topology.errors import CASSETTE_AMBIGUOUS, NOT_CANONICAL
from cassette_topology.live import LiveCall, LiveParent, live_call
from cassette_topology.tracker import TopologyTracker
from returns.result import Failure, Success

CONTEXT: dict[str, object] = {"options": {}, "session": {}}
CONTEXT_FP = "sha256:071170d5f14968667bb3029474bcc3e3488ac58bed1a4ae90ec08669c43db6ed"
REQUEST: dict[str, object] = {
    "label": "audit",
    "prompt": [{"text": "prompt:audit", "type": "text"}],
}
REQUEST_FP = "sha256:314d2395805a9d5aafebf28cef1e2cc0e455d7d77db2c2098dbd39f2d559005f"


def call(parent: LiveParent, request: dict[str, object] = REQUEST) -> LiveCall:
    built = live_call(parent, request, CONTEXT)
    assert isinstance(built, Success)
    live: LiveCall = built.unwrap()
    return live


def test_fingerprints_match_reference_vectors() -> None:  # NORM-4, NORM-11
    built = call(LiveParent("p"))
    assert built.request_fingerprint == REQUEST_FP
    assert built.parent_context_fingerprint == CONTEXT_FP


def test_first_parent_becomes_root_and_occurrences_count() -> None:  # TOPO-1, TOPO-3, TOPO-4
    tracker = TopologyTracker()
    first = tracker.reserve(call(LiveParent("live-1"))).unwrap()
    second = tracker.reserve(call(LiveParent("live-1"))).unwrap()
    assert (first.parent_key, first.occurrence, first.call_key) == (
        "root",
        1,
        "root/audit-5fbf2955ce0b~1",
    )
    assert (second.occurrence, second.call_key) == (2, "root/audit-5fbf2955ce0b~2")
    assert tracker.snapshot().root_id == "live-1"


def test_second_root_is_rejected_without_trace() -> None:  # TOPO-2 case 4
    tracker = TopologyTracker()
    tracker.reserve(call(LiveParent("a")))
    before = tracker.snapshot()
    refused = tracker.reserve(call(LiveParent("b")))
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_AMBIGUOUS
    assert refused.failure().message == (
        'cassette observed more than one top-level parent ("a" and "b"); '
        "record each root in a separate cassette"
    )
    assert tracker.snapshot() == before


def test_foreign_subagent_parent_is_rejected() -> None:  # TOPO-2 case 2, TOPO-6
    tracker = TopologyTracker()
    refused = tracker.reserve(call(LiveParent("child-9", origin="subagent")))
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_AMBIGUOUS
    assert refused.failure().message == (
        'subagent parent "child-9" was not created through this cassette provider; '
        "its stable topology path is unavailable"
    )
    assert tracker.snapshot() == TopologyTracker().snapshot()


def test_known_subagent_parent_resolves_before_origin_check() -> None:  # TOPO-2 case 1, TOPO-5
    tracker = TopologyTracker()
    outer = tracker.reserve(call(LiveParent("root-agent"))).unwrap()
    assert tracker.register_local_child("child-1", outer.call_key) == Success(None)
    nested = tracker.reserve(call(LiveParent("child-1", origin="subagent"))).unwrap()
    assert nested.parent_key == outer.call_key
    assert nested.call_key == f"{outer.call_key}/audit-5fbf2955ce0b~1"
    assert nested.occurrence == 1


def test_local_child_remap_is_rejected_and_same_key_is_a_no_op() -> None:  # TOPO-5
    tracker = TopologyTracker()
    assert tracker.register_local_child("c", "root/a-1~1") == Success(None)
    assert tracker.register_local_child("c", "root/a-1~1") == Success(None)
    before = tracker.snapshot()
    refused = tracker.register_local_child("c", "root/b-2~1")
    assert isinstance(refused, Failure)
    assert refused.failure().code == CASSETTE_AMBIGUOUS
    assert refused.failure().message == (
        'local child "c" was already mapped to "root/a-1~1", cannot remap it to "root/b-2~1"'
    )
    assert tracker.snapshot() == before


def test_fingerprint_failure_leaves_no_trace_and_retry_succeeds() -> None:  # TOPO-3
    tracker = TopologyTracker()
    bad = {"label": "audit", "prompt": [{"text": float("nan"), "type": "text"}]}
    refused = tracker.reserve_normalized(LiveParent("root-1"), bad, CONTEXT)
    assert isinstance(refused, Failure)
    assert refused.failure().code == NOT_CANONICAL
    bad_context = tracker.reserve_normalized(LiveParent("root-1"), REQUEST, {"x": float("inf")})
    assert isinstance(bad_context, Failure)
    assert tracker.snapshot() == TopologyTracker().snapshot()
    # A different root id is still free to become the root after the failures.
    retried = tracker.reserve_normalized(LiveParent("root-2"), REQUEST, CONTEXT)
    assert retried.map(lambda reserved: reserved.call_key) == Success("root/audit-5fbf2955ce0b~1")


@dataclass(frozen=True)
class Recorded:
    identity: CallIdentity


def test_seeding_continues_each_group_and_never_seeds_the_root() -> None:  # TOPO-1, WRITE-4
    seeded = TopologyTracker(
        [
            Recorded(CallIdentity(CallGroup("root", CONTEXT_FP, REQUEST_FP), 2)),
            Recorded(CallIdentity(CallGroup("root", CONTEXT_FP, REQUEST_FP), 1)),
        ]
    )
    assert seeded.snapshot().root_id is None
    reserved = seeded.reserve(call(LiveParent("a-new-root-id"))).unwrap()
    assert reserved.occurrence == 3
    assert reserved.call_key == "root/audit-5fbf2955ce0b~3"


def test_a_shown_label_changes_only_the_readable_segment() -> None:  # TOPO-4, issue 14
    request = {"kind": "x", "label": "Deploy sk-live-SECRET"}
    plain = TopologyTracker().reserve_normalized(LiveParent("p"), request, None).unwrap()
    shown = (
        TopologyTracker()
        .reserve_normalized(LiveParent("p"), request, None, shown_label="Deploy [REDACTED]")
        .unwrap()
    )
    assert plain.call_key.startswith("root/deploy-sk-live-secret-")
    assert shown.call_key.startswith("root/deploy-redacted-")
    assert shown.call_key.split("-")[-1] == plain.call_key.split("-")[-1]  # same hex and ~n
    assert shown.request_fingerprint == plain.request_fingerprint
    assert shown.parent_context_fingerprint == plain.parent_context_fingerprint


def test_a_released_local_child_is_forgotten_and_its_group_counts_stay() -> None:  # issue 26
    """An ended child's map entry goes (a long recording keeps none per call); counts stay."""
    tracker = TopologyTracker()
    first = tracker.reserve(call(LiveParent("live-1"))).unwrap()
    assert isinstance(tracker.register_local_child("child-1", first.call_key), Success)
    child = LiveParent("child-1", origin="subagent")
    assert isinstance(tracker.reserve(call(child)), Success)  # nested while the child runs
    tracker.release_local_child("child-1", "root/another~1")  # not its key: kept
    assert dict(tracker.snapshot().parent_keys)["child-1"] == first.call_key
    tracker.release_local_child("child-1", first.call_key)
    assert dict(tracker.snapshot().parent_keys) == {"live-1": "root"}
    assert isinstance(tracker.reserve(call(child)), Failure)  # an ended child starts nothing
    again = tracker.reserve(call(LiveParent("live-1"))).unwrap()
    assert again.occurrence == 2  # the group's occurrence survived the release
