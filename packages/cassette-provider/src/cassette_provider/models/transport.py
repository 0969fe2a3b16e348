"""httpx transports that record and replay OpenAI-compatible chat completions per session.

`RecordingTransport` forwards to a real upstream transport and records each call into the
calling session's log; `ReplayTransport` answers from the recorded scripts without any
network. The session id comes from the `x-cassette-session` request header (stripped before
forwarding) or, failing that, from `session_scope` (a context variable, one per asyncio task).
Streamed (`text/event-stream`) responses are recorded and replayed event by event.

This module imports httpx; `cassette_provider.models` does not, so httpx stays optional.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Sequence
from typing import TYPE_CHECKING, Final

from cassette_canonical import JsonValue, canonical_json, parse_json
from cassette_format.problem import FormatProblem
from cassette_format.sessions import SESSION_LOG_FORMAT
from cassette_topology.sessions import SESSION_ORDINAL, session_label

from cassette_provider.contract.errors import raise_session_error
from cassette_provider.extras import require_extra
from cassette_provider.models.recorder import CallRecording, SessionRecorder
from cassette_provider.models.redaction import SessionRedaction, session_redaction
from cassette_provider.models.replayer import SessionReplayer
from cassette_provider.models.sse import SseDecoder, encode_event

if TYPE_CHECKING:
    import httpx
else:  # the optional dependency: a missing httpx names the extra to install
    httpx = require_extra("httpx", __name__)

#: Request header naming the calling session.
SESSION_HEADER: Final = "x-cassette-session"
#: Request header pinning a new session to a script (0 = primary, k = child k).
ORDINAL_HEADER: Final = "x-cassette-session-ordinal"

_EVENT_STREAM: Final = "text/event-stream"
_ORDINAL: Final = re.compile(r"0|[1-9][0-9]{0,8}", re.ASCII)


def _body_value(content: bytes) -> JsonValue:
    """A request or response body as JSON when it is JSON, else as its text."""
    text: JsonValue = content.decode("utf-8", errors="replace")
    return parse_json(content).value_or(text)


def model_request(request: httpx.Request) -> JsonValue:
    """The fingerprinted identity of an HTTP model call: method, path, query and body.

    Headers (credentials, SDK versions, retry counters) and the host are left out, so the
    same call matches across machines, keys and base URLs with the same path; request
    headers are never stored in a session log.
    """
    identity: dict[str, JsonValue] = {
        "method": request.method,
        "path": request.url.path,
        "body": _body_value(request.content),
    }
    if request.url.query:
        identity["query"] = request.url.query.decode("ascii", errors="replace")
    return identity


def _session_of(request: httpx.Request) -> tuple[str | None, int | None]:
    """The session id and optional first-call ordinal a request carries in its headers."""
    session = request.headers.get(SESSION_HEADER)
    ordinal_text = request.headers.get(ORDINAL_HEADER)
    if ordinal_text is None:
        return session, None
    if _ORDINAL.fullmatch(ordinal_text) is None:
        raise_session_error(
            FormatProblem(
                f"session {session_label(session)} sent a {ORDINAL_HEADER} header that is not "
                "a non-negative decimal integer",
                code=SESSION_ORDINAL,
                session=session,
            )
        )
    return session, int(ordinal_text)


def _without_session_headers(request: httpx.Request) -> httpx.Request:
    """Drop the cassette headers so the upstream never sees them."""
    for name in (SESSION_HEADER, ORDINAL_HEADER):
        if name in request.headers:
            del request.headers[name]
    return request


def _pass_through_headers(headers: httpx.Headers) -> httpx.Headers:
    """Upstream headers minus framing ones: the client gets the decoded body re-framed."""
    kept = httpx.Headers(headers)
    for name in ("content-encoding", "content-length", "transfer-encoding"):
        if name in kept:
            del kept[name]
    return kept


class _RecordedStream(httpx.AsyncByteStream):
    """Pass upstream bytes through to the client while recording each complete SSE event."""

    def __init__(
        self, upstream: httpx.Response, call: CallRecording, meta: dict[str, JsonValue]
    ) -> None:
        self._upstream = upstream
        self._call = call
        self._meta = meta
        self._decoder = SseDecoder()

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for data in self._upstream.aiter_bytes():
            for event in self._decoder.feed(data):
                self._call.add_chunk(event)
            yield data
        for event in self._decoder.close():
            self._call.add_chunk(event)
        self._call.finish(streamed=True, meta=self._meta)

    async def aclose(self) -> None:
        self._call.finish(streamed=True, meta=self._meta)
        await self._upstream.aclose()


class _ReplayedStream(httpx.AsyncByteStream):
    """Yield recorded SSE events one by one, each as its own chunk of bytes."""

    def __init__(self, events: tuple[bytes, ...]) -> None:
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event

    async def aclose(self) -> None:
        return None


def _meta(response: httpx.Response, encoding: str | None = None) -> dict[str, JsonValue]:
    """The response facts replay needs besides the body: status, content type, body form."""
    meta: dict[str, JsonValue] = {
        "status": response.status_code,
        "contentType": response.headers.get("content-type", ""),
    }
    if encoding is not None:
        meta["body"] = encoding
    return meta


class RecordingTransport(httpx.AsyncBaseTransport):
    """Forward model calls upstream and record them into the calling session's log.

    Stored requests (body, path, query), chunks and meta are redacted as the recorder's
    `redact_secrets`/`redaction_patterns` say (on by default); either argument given here
    configures redaction for this transport's calls instead (`redact_secrets` defaults on).
    """

    def __init__(
        self,
        upstream: httpx.AsyncBaseTransport,
        recorder: SessionRecorder,
        *,
        redact_secrets: bool | None = None,
        redaction_patterns: Sequence[str] | None = None,
    ) -> None:
        self._upstream = upstream
        self._recorder = recorder
        self._redaction: SessionRedaction | None = None
        if redact_secrets is not None or redaction_patterns is not None:
            self._redaction = session_redaction(
                True if redact_secrets is None else redact_secrets, redaction_patterns or ()
            )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Record one call: streamed event by event, otherwise as one body."""
        session, ordinal = _session_of(request)
        await request.aread()
        call = self._recorder.begin_call(
            model_request(request), session, first_call_ordinal=ordinal, redaction=self._redaction
        )
        try:
            response = await self._upstream.handle_async_request(_without_session_headers(request))
        except BaseException:
            call.abandon()
            raise
        headers = _pass_through_headers(response.headers)
        if response.headers.get("content-type", "").startswith(_EVENT_STREAM):
            return httpx.Response(
                response.status_code,
                headers=headers,
                stream=_RecordedStream(response, call, _meta(response)),
                request=request,
            )
        try:
            body = await response.aread()
        except BaseException:
            call.abandon()
            raise
        value = _body_value(body)
        call.add_chunk(value)
        encoding = "text" if isinstance(value, str) else "json"
        call.finish(streamed=False, meta=_meta(response, encoding))
        return httpx.Response(response.status_code, headers=headers, content=body, request=request)

    async def aclose(self) -> None:
        await self._upstream.aclose()


class ReplayTransport(httpx.AsyncBaseTransport):
    """Answer model calls from the recorded per-session scripts; never touches a network."""

    def __init__(self, replayer: SessionReplayer) -> None:
        self._replayer = replayer

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Route the call to its session's next recorded call and rebuild the response."""
        session, ordinal = _session_of(request)
        await request.aread()
        scripted = self._replayer.take(model_request(request), session, first_call_ordinal=ordinal)
        call = scripted.call
        meta = call.meta if isinstance(call.meta, dict) else {}
        status = meta.get("status")
        status_code = status if isinstance(status, int) and not isinstance(status, bool) else 200
        content_type = meta.get("contentType")
        try:  # everything encoded before the response exists: a refusal never comes mid-stream
            headers = (
                {b"content-type": content_type.encode("utf-8")}
                if isinstance(content_type, str)
                else {}
            )
            if call.streamed:
                events = tuple(encode_event(event) for event in call.chunks)
                return httpx.Response(
                    status_code, headers=headers, stream=_ReplayedStream(events), request=request
                )
            body = call.chunks[0]
            if meta.get("body") == "text" and isinstance(body, str):
                content = body.encode("utf-8")
            else:
                # bodies were verified canonical when the log was loaded, so this cannot fall back
                content = canonical_json(body).value_or("").encode("utf-8")
        except UnicodeEncodeError:
            raise_session_error(_unsendable(session, call.index))
        return httpx.Response(status_code, headers=headers, content=content, request=request)


def _unsendable(session: str | None, call: int) -> FormatProblem:
    """A recorded text no HTTP response can carry: a lone surrogate, only in an edited log.

    The recorder decodes what it receives with replacement characters, so its logs never
    hold one; the code is the codec's (SESSION_LOG_FORMAT), the message names no text.
    """
    return FormatProblem(
        f"recorded call {call} replayed for session {session_label(session)} holds a lone "
        "surrogate, which no HTTP response carries; the session log was edited: record it again",
        code=SESSION_LOG_FORMAT,
        session=session,
        call_index=call,
    )
