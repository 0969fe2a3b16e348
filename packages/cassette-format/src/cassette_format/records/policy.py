"""The header's recording-policy fields, which append (WRITE-4) and diff (DIFF-2) compare."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_canonical import canonical_json

from cassette_format.records.model import POLICY_FIELDS, PolicyField

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

    from cassette_format.records.model import CassetteHeader

__all__ = ["POLICY_FIELDS", "PolicyField", "policy_changes"]


def _policy_values(header: CassetteHeader) -> tuple[JsonValue, ...]:
    """The on-disk value of each policy field, in `POLICY_FIELDS` order."""
    provider = header.provider
    return (
        provider.cassette,
        provider.upstream,
        provider.capabilities.to_json(),
        provider.inherits_parent_context,
        header.request_storage,
        header.redact_secrets,
        list(header.redaction_patterns),
    )


def policy_changes(expected: CassetteHeader, actual: CassetteHeader) -> tuple[PolicyField, ...]:
    """The policy fields whose canonical JSON differs, in reporting order (WRITE-4, DIFF-2)."""
    return tuple(
        name
        for name, before, after in zip(
            POLICY_FIELDS, _policy_values(expected), _policy_values(actual), strict=True
        )
        if canonical_json(before).value_or(None) != canonical_json(after).value_or(None)
    )
