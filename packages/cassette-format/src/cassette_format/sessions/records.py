"""Frozen records of one session log: its header and its recorded model calls."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from cassette_canonical import JsonValue

#: The `format` string of a session log header.
SESSION_LOG_FORMAT_NAME: Final = "cassette-session-log"
#: The only session-log schema version this package reads and writes.
SESSION_LOG_VERSION: Final = 1

HEADER_KIND: Final = "session-log/header"
REQUEST_KIND: Final = "session-log/request"
CHUNK_KIND: Final = "session-log/chunk"
RESPONSE_KIND: Final = "session-log/response"


@dataclass(frozen=True, slots=True)
class SessionLogHeader:
    """Who the recorded session was: id, creation time, parent, seed boundary, binding facts.

    `seed_calls` is the persisted fork seed boundary: the first `seed_calls` calls of a fork
    child's log are the parent's seeded prefix and never part of the child's script.
    `call_key` is the subagent call key of a child started through the subagent cassette (its
    topology identity); `first_call_ordinal` is the ordinal the session declared at record time.
    """

    id: str
    created_at: str
    parent_session: str | None = None
    seed_calls: int | None = None
    call_key: str | None = None
    first_call_ordinal: int | None = None

    @property
    def is_primary(self) -> bool:
        """A session without a parent is the top-level (primary) session."""
        return self.parent_session is None


@dataclass(frozen=True, slots=True)
class RecordedCall:
    """One model call of a session: the request, its fingerprint and the response chunks.

    A non-streamed response is exactly one chunk (the whole body); `meta` is an optional
    adapter-owned object (an HTTP status, a content type) that the generic seam ignores.
    A redacted call keeps what matching needs from the live request before redaction:
    `match_fingerprint` (exact) and `match_binding_fingerprint` (volatile-id normalized);
    `request_redactions`/`response_redactions` count the matches redaction replaced.
    """

    index: int
    request: JsonValue
    request_fingerprint: str
    streamed: bool
    chunks: tuple[JsonValue, ...]
    meta: JsonValue = None
    match_fingerprint: str | None = None
    match_binding_fingerprint: str | None = None
    request_redactions: int = 0
    response_redactions: int = 0

    @property
    def matched_fingerprint(self) -> str:
        """The exact fingerprint live requests are compared with (the unredacted request's)."""
        return self.match_fingerprint or self.request_fingerprint


@dataclass(frozen=True, slots=True)
class SessionLog:
    """A parsed, chain-verified session log; `source` is where it was read from, if known."""

    header: SessionLogHeader
    calls: tuple[RecordedCall, ...]
    source: str | None = None
