"""Ambiguous duplicate groups (FMT-19): same request, same parent, different outcomes."""

from __future__ import annotations

from collections.abc import Iterable

from cassette_canonical import canonical_json
from cassette_format.records import CassetteInteraction

from cassette_topology.call_keys import GroupKey, group_key


def ambiguous_group_keys(interactions: Iterable[CassetteInteraction]) -> list[GroupKey]:
    """Groups, in first-seen order, with two or more members and more than one outcome.

    Outcomes compare by canonical text, so a redaction count alone makes them differ.
    Only groups with several members are canonicalized, which keeps this linear and cheap.
    """
    members: dict[GroupKey, list[CassetteInteraction]] = {}
    for item in interactions:
        key = group_key(item.parent_key, item.parent_context_fingerprint, item.request_fingerprint)
        members.setdefault(key, []).append(item)
    return [
        key
        for key, group in members.items()
        if len(group) > 1
        and len({canonical_json(item.outcome.to_json()).value_or(None) for item in group}) > 1
    ]
