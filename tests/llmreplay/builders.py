"""Small builders of session logs and scripts shared by the llmreplay tests."""

from __future__ import annotations

from cassette_canonical import JsonValue, fingerprint
from cassette_topology.sessions import RecordedCall, SessionLog, SessionLogHeader


def digest(value: JsonValue) -> str:
    """The fingerprint of a test value (test values are always lossless)."""
    return fingerprint(value).unwrap()


def call(index: int, request: JsonValue, *chunks: JsonValue, streamed: bool = True) -> RecordedCall:
    """A recorded call answering `chunks` to `request`."""
    return RecordedCall(index, request, digest(request), streamed, tuple(chunks))


def log(
    session_id: str,
    created_at: str,
    requests_and_answers: list[tuple[JsonValue, JsonValue]],
    *,
    parent: str | None = None,
    seed_calls: int | None = None,
) -> SessionLog:
    """A session log whose i-th call answers one chunk to the i-th request."""
    calls = tuple(
        call(i, request, answer) for i, (request, answer) in enumerate(requests_and_answers, 1)
    )
    return SessionLog(SessionLogHeader(session_id, created_at, parent, seed_calls), calls)
