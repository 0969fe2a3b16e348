"""Edge exceptions: ERR-1 classes, codes, names and the carried diagnostic."""

import pytest
from cassette_format.errors import CassetteError
from cassette_topology import (
    CassetteAmbiguityError,
    CassetteMismatchError,
    InteractionMatcher,
    LiveParent,
    TopologyTracker,
    value_or_raise,
)
from returns.result import Success
from topology.builders import call, cassette, interaction, live_request

AUDIT = live_request("audit", "prompt:audit")


def test_mismatch_raises_with_its_diagnostic() -> None:  # ERR-1, MATCH-2
    matcher = value_or_raise(InteractionMatcher.build(cassette([interaction(1, AUDIT)])))
    with pytest.raises(CassetteMismatchError) as raised:
        value_or_raise(matcher.match(call(live_request("other", "x"))))
    error = raised.value
    assert isinstance(error, CassetteError)
    assert (error.code, error.name) == ("CASSETTE_MISMATCH", "CassetteMismatchError")
    assert error.diagnostic is not None
    assert error.diagnostic.reason == "request-changed"
    assert str(error) == matcher.match(call(live_request("other", "x"))).failure().message


def test_ambiguity_raises_with_its_code() -> None:  # ERR-1, TOPO-2
    tracker = TopologyTracker()
    value_or_raise(tracker.reserve(call(AUDIT, LiveParent("a"))))
    with pytest.raises(CassetteAmbiguityError) as raised:
        value_or_raise(tracker.reserve(call(AUDIT, LiveParent("b"))))
    assert (raised.value.code, raised.value.name) == (
        "CASSETTE_AMBIGUOUS",
        "CassetteAmbiguityError",
    )


def test_invalid_config_is_a_plain_cassette_error() -> None:  # ERR-1, GAP-13
    with pytest.raises(CassetteError) as raised:
        value_or_raise(InteractionMatcher.build(cassette([]), duplicate_policy="first"))
    assert type(raised.value) is CassetteError
    assert raised.value.code == "INVALID_CONFIG"


def test_non_canonical_input_is_a_type_error() -> None:  # ERR-3
    tracker = TopologyTracker()
    with pytest.raises(TypeError, match="not lossless plain JSON"):
        value_or_raise(tracker.reserve_normalized(LiveParent("a"), {"prompt": [float("nan")]}, {}))


def test_success_passes_through() -> None:
    assert value_or_raise(Success(3)) == 3
