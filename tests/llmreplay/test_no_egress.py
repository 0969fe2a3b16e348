"""No egress in replay: the replay transport never forwards, even with a live server listening.

A loopback OpenAI-compatible server counts every connection. Recording goes through it over
real sockets; the replay client points at the same address and must never connect: a replayed
call is answered from its script, and an unmatched or extra call fails naming the session and
the call index, without any request or response body.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import httpx
import openai
import pytest
from cassette_provider.models import (
    ModelReplayError,
    SessionRecorder,
    SessionReplayer,
    SessionReplayMismatchError,
    session_scope,
)
from cassette_provider.models.transport import RecordingTransport, ReplayTransport
from cassette_topology.sessions import (
    SESSION_EXHAUSTED,
    SESSION_EXTRA,
    SESSION_ORDINAL,
    SESSION_UNMATCHED,
)
from llmreplay.openai_local import CANARY, ask, sdk_http_client

_FAILED = (openai.APIConnectionError, SessionReplayMismatchError)


@dataclass
class LoopbackServer:
    """A minimal HTTP/1.1 chat-completions server on 127.0.0.1 that counts connections."""

    port: int = 0
    connections: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        body = json.loads(await reader.readexactly(length))
        text = "echo " + str(body["messages"][-1]["content"])
        payload = json.dumps(
            {
                "id": "chatcmpl-loopback",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text},
                    }
                ],
            }
        ).encode()
        writer.write(
            b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
            + f"content-length: {len(payload)}\r\nconnection: close\r\n\r\n".encode()
            + payload
        )
        await writer.drain()
        writer.close()
        await writer.wait_closed()


@asynccontextmanager
async def _serving() -> AsyncIterator[LoopbackServer]:
    state = LoopbackServer()
    server = await asyncio.start_server(state.handle, "127.0.0.1", 0)
    state.port = server.sockets[0].getsockname()[1]
    async with server:
        yield state


def _client(transport: httpx.AsyncBaseTransport, port: int) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="sk-loopback",
        base_url=f"http://127.0.0.1:{port}/v1",
        http_client=sdk_http_client(transport),
        max_retries=0,
    )


def _assert_no_bodies(error: ModelReplayError) -> None:
    for text in (str(error), json.dumps(error.diagnostic)):
        assert CANARY not in text
        assert "echo" not in text


async def _recorded(server: LoopbackServer) -> SessionReplayer:
    recorder = SessionRecorder()
    async with _client(RecordingTransport(httpx.AsyncHTTPTransport(), recorder), server.port) as c:
        with session_scope("rec-parent"):
            await ask(c, f"{CANARY} plan", stream=False)
        with session_scope("rec-child"):
            await ask(c, f"{CANARY} research", stream=False)
    assert server.connections == 2  # recording really went over the loopback socket
    return SessionReplayer.from_logs(recorder.logs())


async def test_replay_never_connects_and_extra_or_unmatched_calls_fail_without_bodies() -> None:
    async with _serving() as server:
        replayer = await _recorded(server)
        async with _client(ReplayTransport(replayer), server.port) as client:
            with session_scope("live-parent"):
                assert await ask(client, f"{CANARY} plan", stream=False) == f"echo {CANARY} plan"
                with pytest.raises(_FAILED):  # past the end of its script
                    await ask(client, f"{CANARY} plan", stream=False)
            with session_scope("live-stranger"), pytest.raises(_FAILED):  # no script begins so
                await ask(client, f"{CANARY} unrecorded", stream=False)
            with session_scope("live-child"):
                await ask(client, f"{CANARY} research", stream=False)
            with session_scope("live-extra"), pytest.raises(_FAILED):  # every script is bound
                await ask(client, f"{CANARY} research", stream=False)
        assert server.connections == 2  # not one replayed or failed call reached the server
    exhausted, unmatched, extra = replayer.failures
    assert (exhausted.code, exhausted.session, exhausted.call_index) == (
        SESSION_EXHAUSTED,
        "live-parent",
        2,
    )
    assert 'session "live-parent" made model call 2' in str(exhausted)
    assert (unmatched.code, unmatched.session, unmatched.call_index) == (
        SESSION_UNMATCHED,
        "live-stranger",
        1,
    )
    assert 'live session "live-stranger"' in str(unmatched)
    assert "made model call 1" in str(unmatched)
    assert (extra.code, extra.session, extra.call_index) == (SESSION_EXTRA, "live-extra", 1)
    for error in replayer.failures:
        _assert_no_bodies(error)
    with pytest.raises(SessionReplayMismatchError) as first:
        replayer.assert_consumed()
    assert first.value is exhausted


def test_the_replay_transport_has_no_upstream_to_forward_to() -> None:
    with pytest.raises(TypeError):
        ReplayTransport(SessionReplayer(()), httpx.AsyncHTTPTransport())  # type: ignore[call-arg]


async def test_a_declared_ordinal_is_recorded_once_per_session() -> None:
    recorder = SessionRecorder()
    first = recorder.begin_call({"q": 1}, "a", first_call_ordinal=1)
    first.add_chunk({"a": 1})
    first.finish(streamed=False)
    with pytest.raises(ModelReplayError) as taken:
        recorder.begin_call({"q": 2}, "b", first_call_ordinal=1)
    assert taken.value.code == SESSION_ORDINAL
    with pytest.raises(ModelReplayError) as changed:
        recorder.begin_call({"q": 3}, "a", first_call_ordinal=2)
    assert changed.value.code == SESSION_ORDINAL
    again = recorder.begin_call({"q": 4}, "a", first_call_ordinal=1)
    again.add_chunk({"a": 4})
    again.finish(streamed=False)
    (log,) = recorder.logs()
    assert log.header.first_call_ordinal == 1
    assert len(log.calls) == 2
