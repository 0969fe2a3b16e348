"""Call keys and label normalization (TOPO-4)."""

import hashlib

import pytest
from cassette_canonical import fingerprint
from cassette_topology.call_keys import call_key, identity_hex, readable_label
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success

# NORM-4's request fingerprint and NORM-11's first parent context fingerprint.
REQUEST_FP = "sha256:314d2395805a9d5aafebf28cef1e2cc0e455d7d77db2c2098dbd39f2d559005f"
CONTEXT_FP = "sha256:071170d5f14968667bb3029474bcc3e3488ac58bed1a4ae90ec08669c43db6ed"


def test_reference_vector() -> None:  # TOPO-4
    assert call_key("root", "audit", CONTEXT_FP, REQUEST_FP, 1) == Success(
        "root/audit-5fbf2955ce0b~1"
    )


def test_nested_parent_and_occurrence_are_kept_verbatim() -> None:  # TOPO-4, TOPO-5
    key = call_key("root/a-000000000000~1", None, CONTEXT_FP, REQUEST_FP, 3)
    assert key == Success("root/a-000000000000~1/agent-5fbf2955ce0b~3")


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        (None, "agent"),
        ("", "agent"),
        ("---", "agent"),
        ("Audit", "audit"),
        ("Code Review!", "code-review"),
        ("  spaced  out  ", "spaced-out"),
        # one leading and one trailing dash are dropped, whatever the run length was
        ("__x__", "x"),
        ("ÉCOLE", "cole"),  # é is outside [a-z0-9]: its dash leads, so it is dropped
        ("a" * 40, "a" * 32),
        # the slice happens after trimming, so the key part may end in a dash
        ("a" * 31 + " b", "a" * 31 + "-"),
        ("résumé", "r-sum"),
        ("𐀀x", "x"),
        ("İ", "i"),  # full-Unicode lower(): i + combining dot, the dot becomes a dropped dash
        ("12 monkeys", "12-monkeys"),
    ],
)
def test_label_normalization(label: str | None, expected: str) -> None:  # TOPO-4
    assert readable_label(label) == expected


@given(st.binary(min_size=1, max_size=8), st.binary(min_size=1, max_size=8))
def test_identity_of_two_digests_is_the_canonical_objects_digest(a: bytes, b: bytes) -> None:
    # TOPO-4: the direct text for digest-shaped fingerprints equals the canonical writer's.
    context, request = (f"sha256:{hashlib.sha256(x).hexdigest()}" for x in (a, b))
    expected = fingerprint({"parentContextFingerprint": context, "requestFingerprint": request})
    assert identity_hex(context, request).unwrap() == expected.unwrap()[7:19]


def test_identity_of_other_fingerprint_text_takes_the_canonical_writer() -> None:
    odd = 'not "a" digest \u00e9'
    expected = fingerprint({"parentContextFingerprint": odd, "requestFingerprint": "x"}).unwrap()
    assert identity_hex(odd, "x").unwrap() == expected[7:19]
