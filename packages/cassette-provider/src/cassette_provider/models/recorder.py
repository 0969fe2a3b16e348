"""Recording of live model calls into one session log per calling session."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import cast

from cassette_canonical import JsonValue
from cassette_format.problem import FormatProblem
from cassette_format.write.header import iso_timestamp
from cassette_topology.sessions import (
    SESSION_MIXED,
    SESSION_ORDINAL,
    SESSION_RECORD,
    SESSION_REQUEST_INVALID,
    RecordedCall,
    SessionLog,
    SessionLogHeader,
    request_fingerprints,
    session_label,
)

from cassette_provider.contract.errors import raise_session_error, session_value_or_raise
from cassette_provider.live.snapshot import snapshot
from cassette_provider.models.context import ResolvedSession, resolve_call
from cassette_provider.models.files import write_session_logs
from cassette_provider.models.redaction import SessionRedaction, session_redaction
from cassette_provider.models.replayer import request_fingerprint

#: A live streaming model: a request in, response chunks out.
StreamModel = Callable[[JsonValue], AsyncIterator[JsonValue]]
#: A live non-streaming model: a request in, one response body out.
CompleteModel = Callable[[JsonValue], Awaitable[JsonValue]]

#: The recorded id of the anonymous session (calls made without a session id).
ANONYMOUS_SESSION_ID = "anonymous"


def _utc_now() -> datetime:
    """The wall clock, in UTC (the only clock the recorder reads)."""
    return datetime.now(UTC)


@dataclass(slots=True)
class _Session:
    """What the recorder knows of one live session while it runs."""

    header: SessionLogHeader
    seed: tuple[RecordedCall, ...]
    #: Started under the subagent cassette: identified by its call key, never the primary.
    keyed: bool = False
    next_slot: int = 0
    finished: dict[int, RecordedCall] = field(default_factory=dict)
    open_slots: set[int] = field(default_factory=set)

    def calls(self) -> tuple[RecordedCall, ...]:
        """Seed then own calls in start order, numbered 1..n."""
        ordered = [*self.seed, *(self.finished[slot] for slot in sorted(self.finished))]
        return tuple(replace(c, index=i) for i, c in enumerate(ordered, start=1))


def _unanswered_call(
    request: JsonValue, session: str | None, redaction: SessionRedaction
) -> RecordedCall:
    """The call as logged before its response: the redacted request and how matching finds it.

    The stored `requestFingerprint` stays the digest of the stored request (the codec checks
    it); a redacted request also keeps its unredacted exact and binding fingerprints. Index,
    chunks and response facts are filled in when the call finishes.
    """
    exact = request_fingerprint(request, session)
    stored, count = redaction.request(request)
    if count == 0:
        return RecordedCall(0, request, exact, streamed=False, chunks=())
    invalid = FormatProblem(
        f"a model request of session {session_label(session)} is not lossless canonical JSON",
        code=SESSION_REQUEST_INVALID,
        session=session,
    )
    _, binding = session_value_or_raise(request_fingerprints(request).alt(lambda _: invalid))
    return RecordedCall(
        0,
        stored,
        request_fingerprint(stored, session),
        streamed=False,
        chunks=(),
        match_fingerprint=exact,
        match_binding_fingerprint=binding,
        request_redactions=count,
    )


class CallRecording:
    """One live call being recorded: adapters add chunks as they arrive, then finish once.

    Chunks and meta are stored redacted (copies: the caller's values are not touched).
    """

    def __init__(
        self,
        session: _Session,
        slot: int,
        unanswered: RecordedCall,
        redaction: SessionRedaction,
    ) -> None:
        self._session = session
        self._slot = slot
        self._unanswered = unanswered
        self._redaction = redaction
        self._chunks: list[JsonValue] = []
        self._done = False

    def add_chunk(self, chunk: JsonValue) -> None:
        """Keep a copy of one response chunk (a whole body for non-streamed calls).

        Chunks are redacted together when the call finishes, so a secret split across two
        of them is caught (models/stream_redaction.py).
        """
        self._chunks.append(cast(JsonValue, snapshot(chunk).value_or(chunk)))

    def finish(self, *, streamed: bool, meta: JsonValue = None) -> None:
        """Close the call with the chunks seen so far; later calls are ignored."""
        if self._done:
            return
        self._done = True
        self._session.open_slots.discard(self._slot)
        stored_meta, meta_count = self._redaction.value(meta)
        chunks, chunk_count = self._redaction.chunks(self._chunks)
        self._session.finished[self._slot] = replace(
            self._unanswered,
            streamed=streamed,
            chunks=tuple(chunks),
            meta=stored_meta,
            response_redactions=chunk_count + meta_count,
        )

    def abandon(self) -> None:
        """Drop a call whose live model failed: nothing replayable was observed."""
        if not self._done:
            self._done = True
            self._session.open_slots.discard(self._slot)


class SessionRecorder:
    """Records live model calls per calling session and writes one log per session.

    The first session to call (or be declared) is the primary; later sessions default to
    children of the primary. `createdAt` is strictly increasing in creation order, so child
    ordinals follow creation order even when the clock does not advance between sessions.
    A session started through the subagent cassette records its call key and its parent; a
    first-call ordinal a session declares is recorded in its header (unique per recording).
    With `redact_secrets` (the default), requests, chunks and meta are stored through the
    cassette redactor (built-ins plus `redaction_patterns`); matching uses fingerprints of
    the unredacted request.
    """

    def __init__(
        self,
        stream_model: StreamModel | None = None,
        complete_model: CompleteModel | None = None,
        *,
        clock: Callable[[], datetime] = _utc_now,
        anonymous_id: str = ANONYMOUS_SESSION_ID,
        redact_secrets: bool = True,
        redaction_patterns: Sequence[str] = (),
    ) -> None:
        self._redaction = session_redaction(redact_secrets, redaction_patterns)
        self._stream_model = stream_model
        self._complete_model = complete_model
        self._clock = clock
        self._anonymous_id = anonymous_id
        self._sessions: dict[str | None, _Session] = {}
        self._primary: str | None = None
        self._last_instant: datetime | None = None
        #: Declared first-call ordinals and the session that declared each.
        self._ordinals: dict[int, str | None] = {}

    def _created_at(self) -> str:
        """A creation instant strictly after the previous one, at millisecond resolution."""
        now = self._clock().astimezone(UTC)
        instant = now.replace(microsecond=now.microsecond // 1000 * 1000)
        if self._last_instant is not None and instant <= self._last_instant:
            instant = self._last_instant + timedelta(milliseconds=1)
        self._last_instant = instant
        return iso_timestamp(instant)  # `YYYY-MM-DDTHH:mm:ss.sssZ`, as cassettes (FMT-22)

    def declare_session(
        self, session_id: str, *, parent_session: str | None = None, fork: bool = False
    ) -> None:
        """Register a session before its first call; `fork` seeds it with the parent's log.

        A fork child's log begins with every call its parent has finished so far and
        persists that count as the seed boundary (`seedCalls`), so replay cuts it off.
        """
        if session_id in self._sessions:
            raise_session_error(
                FormatProblem(
                    f"session {session_label(session_id)} is already recorded",
                    code=SESSION_RECORD,
                    session=session_id,
                )
            )
        parent = parent_session if parent_session is not None else self._primary
        seed: tuple[RecordedCall, ...] = ()
        if fork:
            known = self._sessions.get(parent) if parent is not None else None
            if known is None:
                raise_session_error(
                    FormatProblem(
                        f"fork session {session_label(session_id)} needs a recorded parent",
                        code=SESSION_RECORD,
                        session=session_id,
                    )
                )
            seed = known.calls()
        self._add(session_id, session_id, parent, seed if fork else None)

    def _add(
        self,
        key: str | None,
        recorded_id: str,
        parent: str | None,
        seed: tuple[RecordedCall, ...] | None,
        resolved: ResolvedSession | None = None,
    ) -> _Session:
        """Create the session's record; the first unkeyed one without a parent is the primary."""
        keyed = resolved is not None and resolved.call_key is not None
        header = SessionLogHeader(
            id=recorded_id,
            created_at=self._created_at(),
            parent_session=parent,
            seed_calls=None if seed is None else len(seed),
            call_key=None if resolved is None else resolved.call_key,
            first_call_ordinal=None if resolved is None else resolved.first_call_ordinal,
        )
        session = _Session(header, seed or (), keyed)
        self._sessions[key] = session
        if parent is None and self._primary is None and not keyed:
            self._primary = recorded_id
        return session

    def _check_ordinal(self, resolved: ResolvedSession, known: _Session | None) -> None:
        """A declared ordinal is unique per recording and fixed by the session's first call."""
        ordinal = resolved.first_call_ordinal
        if ordinal is None:
            return
        declared = None if known is None else known.header.first_call_ordinal
        owner = self._ordinals.get(ordinal, resolved.session)
        if (known is not None and declared != ordinal) or owner != resolved.session:
            raise_session_error(
                FormatProblem(
                    f"session {session_label(resolved.session)} declared first-call ordinal "
                    f"{ordinal}, but that ordinal belongs to another session or the session "
                    "declared a different one at its first call",
                    code=SESSION_ORDINAL,
                    session=resolved.session,
                )
            )
        self._ordinals[ordinal] = resolved.session

    def _session_for(self, resolved: ResolvedSession) -> _Session:
        """The live session's record, created on its first call; mixing kinds fails.

        Sessions keyed by a subagent call key may mix with the anonymous session: their
        identity, not their order, binds them.
        """
        session_id = resolved.session
        known = self._sessions.get(session_id)
        self._check_ordinal(resolved, known)
        if known is not None:
            return known
        keyed = resolved.call_key is not None
        unkeyed_present = any(not s.keyed for s in self._sessions.values())
        anonymous_present = None in self._sessions
        if (session_id is None and unkeyed_present) or (
            session_id is not None and not keyed and anonymous_present
        ):
            raise_session_error(
                FormatProblem(
                    f"session {session_label(session_id)} made a model call, but anonymous and "
                    "identified calls cannot be mixed in one recording",
                    code=SESSION_MIXED,
                    session=session_id,
                )
            )
        recorded_id = self._anonymous_id if session_id is None else session_id
        parent = self._primary
        if keyed and resolved.parent_session is not None:
            parent = resolved.parent_session
        return self._add(session_id, recorded_id, parent, None, resolved)

    def begin_call(
        self,
        request: JsonValue,
        session_id: str | None = None,
        *,
        first_call_ordinal: int | None = None,
        redaction: SessionRedaction | None = None,
    ) -> CallRecording:
        """Start recording one call of the calling session (explicit id, context, anonymous).

        A declared `first_call_ordinal` (or the scope's) is recorded in the session's header,
        so replay can honour it when sessions with identical first requests tie. `redaction`
        replaces the recorder's own for this call (a transport configured on its own).
        """
        resolved = resolve_call(session_id, first_call_ordinal)
        chosen = self._redaction if redaction is None else redaction
        unanswered = _unanswered_call(request, resolved.session, chosen)
        session = self._session_for(resolved)
        slot = session.next_slot
        session.next_slot += 1
        session.open_slots.add(slot)
        return CallRecording(session, slot, unanswered, chosen)

    async def stream(
        self, request: JsonValue, session_id: str | None = None
    ) -> AsyncIterator[JsonValue]:
        """Stream the live model's chunks to the caller while recording them."""
        if self._stream_model is None:
            raise_session_error(
                FormatProblem("the recorder has no live streaming model", code=SESSION_RECORD)
            )
        call = self.begin_call(request, session_id)
        try:
            async for chunk in self._stream_model(request):
                call.add_chunk(chunk)
                yield chunk
        except GeneratorExit:
            call.finish(streamed=True)  # the caller stopped early: replay what it saw
            raise
        except BaseException:
            call.abandon()
            raise
        call.finish(streamed=True)

    async def complete(self, request: JsonValue, session_id: str | None = None) -> JsonValue:
        """Answer the live model's body for a non-streamed call while recording it."""
        if self._complete_model is None:
            raise_session_error(
                FormatProblem("the recorder has no live completion model", code=SESSION_RECORD)
            )
        call = self.begin_call(request, session_id)
        try:
            body = await self._complete_model(request)
        except BaseException:
            call.abandon()
            raise
        call.add_chunk(body)
        call.finish(streamed=False)
        return body

    def logs(self) -> tuple[SessionLog, ...]:
        """The recorded logs; fails if a call is still open (it would be lost)."""
        logs: list[SessionLog] = []
        for key, session in self._sessions.items():
            if session.open_slots:
                raise_session_error(
                    FormatProblem(
                        f"session {session_label(key)} still has "
                        f"{len(session.open_slots)} unfinished model call(s)",
                        code=SESSION_RECORD,
                        session=key,
                    )
                )
            logs.append(SessionLog(self._final_header(session), session.calls()))
        return tuple(logs)

    def _final_header(self, session: _Session) -> SessionLogHeader:
        """A keyed session started outside any session is a child of the primary, if any."""
        header = session.header
        if not session.keyed or header.parent_session is not None:
            return header
        primary = self._primary or next(
            (s.header.id for s in self._sessions.values() if s.keyed), None
        )
        if primary is None or primary == header.id:
            return header
        return replace(header, parent_session=primary)

    async def write(
        self, directory: str | os.PathLike[str], *, prune_stale: bool = True
    ) -> tuple[Path, ...]:
        """Write every session's log into a directory as the next generation per role."""
        return await write_session_logs(directory, self.logs(), prune_stale=prune_stale)
