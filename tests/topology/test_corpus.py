"""Call keys and matcher construction over the reference's own valid cassettes (interop)."""

import json

import pytest
from cassette_format import CassetteFile, MetadataRequestView, parse_cassette
from cassette_topology import (
    CASSETTE_AMBIGUOUS,
    CASSETTE_MISMATCH,
    InteractionMatcher,
    LiveCall,
    LiveParent,
    call_key,
)
from returns.result import Failure, Success
from support.paths import INTEROP

MANIFEST = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))
VALID = [c for c in MANIFEST["cases"] if c["type"] == "cassette" and c["verdict"] == "valid"]
# Some cassettes were written with hand-chosen call keys; only derived keys can be reproduced.
DERIVED_KEYS = [c for c in VALID if "free-form callKey" not in str(c.get("provenance"))]


def load(case: dict[str, object]) -> CassetteFile:
    files = case["files"]
    assert isinstance(files, list)
    (relative,) = files
    parsed = parse_cassette((INTEROP / relative).read_bytes(), relative)
    assert isinstance(parsed, Success), parsed
    cassette: CassetteFile = parsed.unwrap()
    return cassette


def reference_summary(case: dict[str, object]) -> dict[str, object]:
    stdout = case["expected"]["verify-json"]["stdout"]  # type: ignore[index]
    return json.loads((INTEROP / stdout).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.mark.parametrize("case", DERIVED_KEYS, ids=[c["name"] for c in DERIVED_KEYS])
def test_recorded_call_keys_are_reproduced(case: dict[str, object]) -> None:  # TOPO-4
    for item in load(case).interactions:
        view = item.request
        label = view.metadata.label if isinstance(view, MetadataRequestView) else view.value.label
        rebuilt = call_key(
            item.parent_key,
            label,
            item.parent_context_fingerprint,
            item.request_fingerprint,
            item.occurrence,
        )
        assert rebuilt == Success(item.call_key)


@pytest.mark.parametrize("case", VALID, ids=[c["name"] for c in VALID])
def test_construction_refusals_follow_the_reference_summary(
    case: dict[str, object],
) -> None:  # MATCH-1
    cassette = load(case)
    summary = reference_summary(case)
    built = InteractionMatcher.build(cassette)
    if summary["ambiguousGroups"]:
        assert isinstance(built, Failure)
        assert built.failure().code == CASSETTE_AMBIGUOUS
    elif summary["redactedResults"]:
        assert isinstance(built, Failure)
        assert built.failure().code == CASSETTE_MISMATCH
    else:
        assert isinstance(built, Success)


@pytest.mark.parametrize("case", VALID, ids=[c["name"] for c in VALID])
def test_root_calls_replay_in_reverse_order(case: dict[str, object]) -> None:  # MATCH-2, TOPO-6
    cassette = load(case)
    # Strict about subtrees: the reference's MATCH-4, where nested calls stay unconsumed.
    matcher = InteractionMatcher.build(
        cassette, duplicate_policy="sequence", allow_redacted_replay=True, strict_subtrees=True
    ).unwrap()
    roots = sorted(
        (item for item in cassette.interactions if item.parent_key == "root"),
        key=lambda item: -item.sequence,
    )
    parent = LiveParent("live-root")
    served: dict[tuple[str, str, str], list[int]] = {}
    for item in roots:
        live = LiveCall(parent, item.parent_context_fingerprint, item.request_fingerprint, {})
        matched = matcher.match(live).unwrap()
        assert matched.group_key == item.group_key
        served.setdefault(matched.group_key, []).append(matched.occurrence)
    for occurrences in served.values():
        assert occurrences == list(range(1, len(occurrences) + 1))
    nested = len(cassette.interactions) - len(roots)
    assert matcher.remaining_count == nested
    assert isinstance(matcher.assert_consumed(), Success if nested == 0 else Failure)
