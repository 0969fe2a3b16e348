"""Per-session replay scripts derived from ordered session logs (LLMREPLAY-3, LLMREPLAY-4)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cassette_format.problem import FormatProblem
from cassette_format.sessions import RecordedCall, SessionLog
from returns.result import Result

from cassette_topology.sessions.ordering import order_primary_first
from cassette_topology.sessions.volatile import binding_fingerprint


@dataclass(frozen=True, slots=True)
class SessionScript:
    """The ordered model calls one recorded session made itself, at its binding position.

    `ordinal` is 0 for the primary and 1, 2, … for children in createdAt-then-id order.
    `call_key` and `declared_ordinal` are the header's binding facts (subagent call key,
    first-call ordinal declared at record time); `binding_fingerprints[i]` is call i+1's
    request fingerprint after volatile-id normalization (empty: use the exact fingerprints).
    """

    ordinal: int
    recorded_session: str
    calls: tuple[RecordedCall, ...]
    call_key: str | None = None
    declared_ordinal: int | None = None
    binding_fingerprints: tuple[str, ...] = ()

    def binding_fingerprint_at(self, cursor: int) -> str:
        """The normalized fingerprint of the call at `cursor` (0-based) that binding compares."""
        if cursor < len(self.binding_fingerprints):
            return self.binding_fingerprints[cursor]
        return self.calls[cursor].request_fingerprint

    @property
    def first_binding_fingerprint(self) -> str | None:
        """What a new live session's first request must match; None for an empty script."""
        return self.binding_fingerprint_at(0) if self.calls else None


def _normalized(call: RecordedCall) -> str:
    """A recorded call's binding fingerprint (recorded requests are verified lossless).

    A redacted request binds by the fingerprint its unredacted original had at record time.
    """
    if call.match_binding_fingerprint is not None:
        return call.match_binding_fingerprint
    return binding_fingerprint(call.request).value_or(call.request_fingerprint)


def derive_script(log: SessionLog, ordinal: int) -> SessionScript:
    """Cut a log into its own script: a fork child drops the seeded parent prefix.

    A fork child's log begins with the parent's calls, including the parent's responses;
    replaying them as the child's would hand the child its parent's settlements, so only the
    calls after the persisted seed boundary (`seedCalls`) belong to the script.
    """
    seed = log.header.seed_calls or 0
    calls = log.calls[seed:]
    return SessionScript(
        ordinal,
        log.header.id,
        calls,
        call_key=log.header.call_key,
        declared_ordinal=log.header.first_call_ordinal,
        binding_fingerprints=tuple(_normalized(call) for call in calls),
    )


def derive_scripts(logs: Iterable[SessionLog]) -> Result[tuple[SessionScript, ...], FormatProblem]:
    """Order logs primary-first and derive one script per recorded session."""
    return order_primary_first(logs).map(
        lambda ordered: tuple(derive_script(log, ordinal) for ordinal, log in enumerate(ordered))
    )
