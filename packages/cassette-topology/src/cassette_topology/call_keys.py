"""Stable call keys: `<parentKey>/<label>-<hex12>~<occurrence>` (TOPO-4)."""

from __future__ import annotations

import re
from typing import Final

from cassette_canonical import fingerprint, fingerprint_bytes, is_digest
from cassette_format.records.identity import CallGroup
from returns.result import Result, Success

from cassette_topology.errors import NOT_CANONICAL, TopologyError

#: The parent key of every call made by the cassette's one logical root (TOPO-2).
ROOT_KEY: Final = "root"
#: The label segment used when a request has no label, or one that normalizes to nothing.
DEFAULT_LABEL: Final = "agent"

_OUTSIDE_LABEL_ALPHABET: Final = re.compile(r"[^a-z0-9]+")
_LABEL_LIMIT: Final = 32
_DIGEST_PREFIX_LENGTH: Final = len("sha256:")
_IDENTITY_HEX_LENGTH: Final = 12
#: The identity object's members, in canonical (sorted) order, and its text around them.
_CONTEXT_MEMBER: Final = "parentContextFingerprint"
_REQUEST_MEMBER: Final = "requestFingerprint"
_IDENTITY_HEAD: Final = f'{{"{_CONTEXT_MEMBER}":"'
_IDENTITY_MIDDLE: Final = f'","{_REQUEST_MEMBER}":"'

#: `group_key(parent_key, parent_context_fingerprint, request_fingerprint)` builds a group.
group_key: Final = CallGroup


def readable_label(label: str | None) -> str:
    """The label segment of a call key: lowercased, runs outside [a-z0-9] become one `-`."""
    if label is None:
        return DEFAULT_LABEL
    dashed = _OUTSIDE_LABEL_ALPHABET.sub("-", label.lower())
    # JS `.replace(/^-|-$/g, "")` drops at most one dash at each end, then slices.
    if dashed.startswith("-"):
        dashed = dashed[1:]
    if dashed.endswith("-"):
        dashed = dashed[:-1]
    return dashed[:_LABEL_LIMIT] or DEFAULT_LABEL


def _digest_identity_hex(parent_context_fingerprint: str, request_fingerprint: str) -> str | None:
    """`identity_hex` of two digest-shaped fingerprints (the usual case), else None.

    Such fingerprints need no escaping, so their canonical object is written directly
    (issue 24).
    """
    if not (is_digest(parent_context_fingerprint) and is_digest(request_fingerprint)):
        return None
    text = "".join(
        (_IDENTITY_HEAD, parent_context_fingerprint, _IDENTITY_MIDDLE, request_fingerprint, '"}')
    )
    return _identity_part(fingerprint_bytes(text.encode("ascii")))


def _identity_part(digest: str) -> str:
    """The first 12 hex characters of a `sha256:` digest."""
    return digest[_DIGEST_PREFIX_LENGTH : _DIGEST_PREFIX_LENGTH + _IDENTITY_HEX_LENGTH]


def identity_hex(
    parent_context_fingerprint: str, request_fingerprint: str
) -> Result[str, TopologyError]:
    """First 12 hex characters of the digest of both fingerprints: the key's identity part."""
    hex12 = _digest_identity_hex(parent_context_fingerprint, request_fingerprint)
    if hex12 is not None:
        return Success(hex12)
    return (
        fingerprint(
            {
                _CONTEXT_MEMBER: parent_context_fingerprint,
                _REQUEST_MEMBER: request_fingerprint,
            }
        )
        .map(_identity_part)
        .alt(
            lambda error: TopologyError(
                NOT_CANONICAL,
                "call identity is not lossless canonical JSON",
                canonical_code=error.code,
            )
        )
    )


def call_key(
    parent_key: str,
    label: str | None,
    parent_context_fingerprint: str,
    request_fingerprint: str,
    occurrence: int,
) -> Result[str, TopologyError]:
    """The stable key of one call under its parent (TOPO-4)."""
    hex12 = _digest_identity_hex(parent_context_fingerprint, request_fingerprint)
    if hex12 is not None:
        return Success(_key(parent_key, label, hex12, occurrence))
    return identity_hex(parent_context_fingerprint, request_fingerprint).map(
        lambda identity: _key(parent_key, label, identity, occurrence)
    )


def _key(parent_key: str, label: str | None, hex12: str, occurrence: int) -> str:
    """`<parentKey>/<label>-<hex12>~<occurrence>` (TOPO-4)."""
    return f"{parent_key}/{readable_label(label)}-{hex12}~{occurrence}"
