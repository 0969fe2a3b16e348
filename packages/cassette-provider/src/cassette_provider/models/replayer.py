"""Offline model-call replay per calling session: the `stream(request, session_id)` seam."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager

from cassette_canonical import JsonValue, fingerprint
from cassette_format.problem import FormatProblem
from cassette_format.result_edge import or_raise
from cassette_format.sessions import quote
from cassette_topology.sessions import (
    BINDING_POLICIES,
    BY_REQUEST,
    SESSION_CONFIG,
    SESSION_REDACTED,
    SESSION_REQUEST_INVALID,
    BindingPolicy,
    BindingState,
    LiveModelCall,
    ScriptedCall,
    SessionLog,
    SessionScript,
    check_consumed,
    cover_subagent,
    derive_scripts,
    request_fingerprints,
    route_call,
    session_label,
    start_binding,
)

from cassette_provider.contract.errors import (
    ModelReplayError,
    raise_session_error,
    session_error,
    session_value_or_raise,
)
from cassette_provider.models.context import observe_subagents, resolve_call
from cassette_provider.models.files import harvest_session_logs


def request_fingerprint(request: object, session: str | None) -> str:
    """Fingerprint a live model request, or fail with a metadata-only error."""
    invalid = FormatProblem(
        f"a model request of session {session_label(session)} is not lossless canonical JSON",
        code=SESSION_REQUEST_INVALID,
        session=session,
    )
    return session_value_or_raise(fingerprint(request).alt(lambda _: invalid))


def _both_fingerprints(request: JsonValue, session: str | None) -> tuple[str, str]:
    """The exact and the volatile-id-normalized fingerprint, or a metadata-only error."""
    invalid = FormatProblem(
        f"a model request of session {session_label(session)} is not lossless canonical JSON",
        code=SESSION_REQUEST_INVALID,
        session=session,
    )
    return session_value_or_raise(request_fingerprints(request).alt(lambda _: invalid))


def _redacted(scripted: ScriptedCall, recorded_session: str) -> FormatProblem:
    """The refusal of a call whose recorded response was redacted (metadata only)."""
    return FormatProblem(
        f"model call {scripted.call_index} of session {session_label(scripted.session)} "
        f"(recorded session {quote(recorded_session)}) replays a response with "
        f"{scripted.call.response_redactions} redacted secret(s); record without the secret "
        "or pass allow_redacted_replay=True",
        code=SESSION_REDACTED,
        session=scripted.session,
        call_index=scripted.call_index,
    )


class SessionReplayer:
    """Replays recorded model responses, each live session from its own recorded script.

    State transitions are synchronous (no await between reading and replacing the binding
    state), so concurrent sessions in one event loop never race. The first failure is kept
    and raised again by `assert_consumed`, so a client that swallows transport errors (an SDK
    that wraps them) still fails the test at teardown.

    `binding` names how a new live session picks its script: `"by-request"` (the default:
    the unclaimed script whose subagent identity and first request match) or `"first-call"`
    (the design note's first-call order). A call whose recorded response was redacted is
    refused (`SESSION_REDACTED`) unless `allow_redacted_replay=True`: the client would get
    `[REDACTED]` where the live model answered something else.
    """

    def __init__(
        self,
        scripts: Iterable[SessionScript],
        *,
        binding: BindingPolicy = BY_REQUEST,
        allow_redacted_replay: bool = False,
    ) -> None:
        if binding not in BINDING_POLICIES:
            raise_session_error(
                FormatProblem(
                    f"binding must be one of {', '.join(BINDING_POLICIES)}", code=SESSION_CONFIG
                )
            )
        self._state: BindingState = start_binding(tuple(scripts), binding)
        self._failures: list[ModelReplayError] = []
        self._allow_redacted = allow_redacted_replay

    @classmethod
    def from_logs(
        cls,
        logs: Iterable[SessionLog],
        *,
        binding: BindingPolicy = BY_REQUEST,
        allow_redacted_replay: bool = False,
    ) -> SessionReplayer:
        """Order logs primary-first and derive the scripts (fork children cut at the seed)."""
        return cls(
            session_value_or_raise(derive_scripts(logs)),
            binding=binding,
            allow_redacted_replay=allow_redacted_replay,
        )

    @classmethod
    async def from_directory(
        cls,
        directory: str | os.PathLike[str],
        *,
        binding: BindingPolicy = BY_REQUEST,
        allow_redacted_replay: bool = False,
    ) -> SessionReplayer:
        """Harvest every session log under a directory and replay from it."""
        return cls.from_logs(
            await harvest_session_logs(directory),
            binding=binding,
            allow_redacted_replay=allow_redacted_replay,
        )

    @property
    def binding(self) -> BindingPolicy:
        """The named binding policy in force."""
        return self._state.policy

    def cover_subagent(self, call_key: str) -> None:
        """The subagent cassette replayed `call_key`: its sessions' scripts need no calls."""
        self._state = cover_subagent(self._state, call_key)

    @contextmanager
    def covering_subagents(self) -> Iterator[SessionReplayer]:
        """Inside the block, children the subagent cassette replays count as covered."""
        with observe_subagents(self.cover_subagent):
            yield self

    @property
    def scripts(self) -> tuple[SessionScript, ...]:
        """The scripts in binding order: primary first, then children."""
        return self._state.scripts

    @property
    def failures(self) -> tuple[ModelReplayError, ...]:
        """Every replay failure so far, in the order they happened."""
        return tuple(self._failures)

    def take(
        self,
        request: JsonValue,
        session_id: str | None = None,
        *,
        first_call_ordinal: int | None = None,
    ) -> ScriptedCall:
        """Route one live call to its session's next recorded call, or raise a mismatch."""
        resolved = resolve_call(session_id, first_call_ordinal)
        session = resolved.session
        try:
            if self._state.policy == BY_REQUEST:
                digest, normalized = _both_fingerprints(request, session)
            else:
                digest, normalized = request_fingerprint(request, session), None
        except ModelReplayError as error:
            self._failures.append(error)
            raise
        live = LiveModelCall(
            session, digest, normalized, resolved.first_call_ordinal, resolved.call_key
        )
        state, scripted = or_raise(route_call(self._state, live), self._failed)
        if scripted.call.response_redactions and not self._allow_redacted:
            recorded = state.scripts[scripted.ordinal].recorded_session
            raise self._failed(_redacted(scripted, recorded))
        self._state = state
        return scripted

    def _failed(self, error: FormatProblem) -> ModelReplayError:
        """The exception of a refused call, kept in `failures` before it is raised."""
        failure = session_error(error)
        self._failures.append(failure)
        return failure

    async def stream(
        self,
        request: JsonValue,
        session_id: str | None = None,
        *,
        first_call_ordinal: int | None = None,
    ) -> AsyncIterator[JsonValue]:
        """Yield the recorded chunks of the session's next call, one by one."""
        scripted = self.take(request, session_id, first_call_ordinal=first_call_ordinal)
        for chunk in scripted.call.chunks:
            yield chunk

    async def complete(
        self,
        request: JsonValue,
        session_id: str | None = None,
        *,
        first_call_ordinal: int | None = None,
    ) -> JsonValue:
        """Answer the recorded body of a non-streamed call (the chunks of a streamed one)."""
        scripted = self.take(request, session_id, first_call_ordinal=first_call_ordinal)
        chunks = scripted.call.chunks
        return chunks[0] if not scripted.call.streamed else list(chunks)

    def assert_consumed(self) -> None:
        """Raise the first replay failure, else fail if any recorded call was not replayed."""
        if self._failures:
            raise self._failures[0]
        session_value_or_raise(check_consumed(self._state))
