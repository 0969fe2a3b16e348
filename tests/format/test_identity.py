"""One CallIdentity for every place that groups, compares or shows calls (issue 15)."""

from __future__ import annotations

from dataclasses import replace

from cassette_format.records import ProviderFacts
from cassette_format.records.identity import CallGroup, CallIdentity
from cassette_format.records.policy import POLICY_FIELDS, policy_changes

from format.builders import CAPABILITIES, make_body, make_header


def test_a_record_line_carries_its_identity_members_in_on_disk_order() -> None:  # FMT-10
    body = make_body(3, parent_key="root/audit-0123456789ab~1", occurrence=2)
    identity = body.identity
    members = list(body.to_json())
    shown = list(identity.record_json(body.call_key))
    start = members.index("callKey")
    assert members[start : start + len(shown)] == shown
    assert identity.record_json(body.call_key) == {
        "callKey": body.call_key,
        "parentKey": "root/audit-0123456789ab~1",
        "parentContextFingerprint": body.parent_context_fingerprint,
        "occurrence": 2,
        "requestFingerprint": body.request_fingerprint,
    }


def test_the_group_is_the_plain_triple_the_reference_joins() -> None:  # FMT-16, MATCH-1
    body = make_body(1)
    triple = (body.parent_key, body.parent_context_fingerprint, body.request_fingerprint)
    assert body.group_key == triple
    group = body.identity.group
    assert group == triple
    assert {group: "found"}[triple] == "found"  # the matcher probes its index with the triple
    assert "\0".join(group) == "\0".join(triple)
    assert body.identity == CallIdentity(CallGroup(*triple), body.occurrence)


def test_diff_documents_put_occurrence_after_the_group() -> None:  # DIFF-5
    identity = CallIdentity(CallGroup("root", "sha256:c", "sha256:r"), 4)
    assert list(identity.to_json().items()) == [
        ("parentKey", "root"),
        ("parentContextFingerprint", "sha256:c"),
        ("requestFingerprint", "sha256:r"),
        ("occurrence", 4),
    ]


def test_identities_sort_by_utf16_code_units_then_occurrence() -> None:  # DIFF-1
    astral = CallIdentity(CallGroup("root/\U00010000", "c", "r"), 1)
    last_bmp = CallIdentity(CallGroup("root/\uffff", "c", "r"), 1)
    second = CallIdentity(CallGroup("root/\uffff", "c", "r"), 2)
    tenth = CallIdentity(CallGroup("root/\uffff", "c", "r"), 10)
    ordered = sorted([tenth, last_bmp, second, astral], key=CallIdentity.sort_key)
    assert ordered == [astral, last_bmp, second, tenth]


def test_policy_changes_name_every_differing_field_in_reporting_order() -> None:  # DIFF-2
    header = make_header()
    assert policy_changes(header, header) == ()
    changed = replace(
        header,
        provider=ProviderFacts("other", "spawn", replace(CAPABILITIES, persona=False), True),
        redaction_patterns=("secret-[0-9]+",),
    )
    assert policy_changes(header, changed) == (
        "provider.cassette",
        "provider.capabilities",
        "provider.inheritsParentContext",
        "redactionPatterns",
    )
    assert POLICY_FIELDS[0] == "provider.cassette"
    assert len(POLICY_FIELDS) == len(set(POLICY_FIELDS)) == 7
