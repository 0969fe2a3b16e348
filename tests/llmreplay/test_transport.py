"""The httpx transports under an `openai` SDK client: two concurrent sessions, no network."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import openai
import pytest
from cassette_provider.models import (
    SessionRecorder,
    SessionReplayer,
    SessionReplayMismatchError,
    session_scope,
)
from cassette_provider.models.transport import (
    ORDINAL_HEADER,
    SESSION_HEADER,
    RecordingTransport,
    ReplayTransport,
)
from cassette_topology.sessions import SESSION_EXTRA, SESSION_ORDINAL
from llmreplay.openai_local import sdk_http_client
from llmreplay.scenario import CANARY_PROMPT


class FakeUpstream:
    """An in-process OpenAI-compatible chat-completions server (an httpx.MockTransport)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.transport = httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        body = json.loads(request.content)
        question = body["messages"][-1]["content"]
        words = ["echo", *question.split()]
        if body.get("stream"):
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, content=_sse(words)
            )
        return httpx.Response(
            200,
            json={
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 1,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": " ".join(words)},
                    }
                ],
            },
        )


async def _sse(words: list[str]) -> AsyncIterator[bytes]:
    for index, word in enumerate(words):
        chunk = {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "fake",
            "choices": [{"index": 0, "delta": {"content": ("" if index == 0 else " ") + word}}],
        }
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _client(transport: httpx.AsyncBaseTransport) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        api_key="sk-test",
        base_url="http://upstream.invalid/v1",
        http_client=sdk_http_client(transport),
        max_retries=0,
    )


async def _ask(client: openai.AsyncOpenAI, question: str, *, stream: bool) -> str:
    messages: list[openai.types.chat.ChatCompletionMessageParam] = [
        {"role": "user", "content": question}
    ]
    if not stream:
        completion = await client.chat.completions.create(model="fake", messages=messages)
        return completion.choices[0].message.content or ""
    parts: list[str] = []
    response = await client.chat.completions.create(model="fake", messages=messages, stream=True)
    async for chunk in response:
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    return "".join(parts)


async def _session(
    client: openai.AsyncOpenAI,
    session_id: str,
    role: str,
    gates: list[asyncio.Event],
    mine: list[int],
) -> list[str]:
    """One session's turns: a streamed call, then a plain one; gates force the interleaving."""
    answers: list[str] = []
    with session_scope(session_id):
        for turn, (gate, stream) in enumerate(zip(mine, (True, False), strict=True)):
            await gates[gate].wait()
            answers.append(await _ask(client, f"{role} turn {turn + 1}", stream=stream))
            gates[gate + 1].set()
    return answers


async def _run(
    client: openai.AsyncOpenAI, ids: tuple[str, str], order: str
) -> dict[str, list[str]]:
    """Two concurrent sessions; `order` ("ppcc"-like) says whose turn each global step is."""
    gates = [asyncio.Event() for _ in range(len(order) + 1)]
    gates[0].set()
    positions = {role: [i for i, who in enumerate(order) if who == role[0]] for role in ("p", "c")}
    async with asyncio.TaskGroup() as group:
        parent = group.create_task(_session(client, ids[0], "parent", gates, positions["p"]))
        child = group.create_task(_session(client, ids[1], "child", gates, positions["c"]))
    return {"parent": parent.result(), "child": child.result()}


async def test_openai_client_records_and_replays_two_concurrent_sessions(tmp_path: Path) -> None:
    # LLMREPLAY-1, LLMREPLAY-6: streaming (SSE) and non-streaming, per session
    upstream = FakeUpstream()
    recorder = SessionRecorder()
    async with _client(RecordingTransport(upstream.transport, recorder)) as client:
        recorded = await _run(client, ("rec-parent", "rec-child"), "pccp")
    assert recorded == {
        "parent": ["echo parent turn 1", "echo parent turn 2"],
        "child": ["echo child turn 1", "echo child turn 2"],
    }
    assert len(upstream.requests) == 4
    paths = await recorder.write(tmp_path)
    assert [p.name for p in paths] == ["session.jsonl", "session.1.jsonl"]
    assert all("sk-test" not in p.read_text() for p in paths)  # headers are never persisted

    replayer = await SessionReplayer.from_directory(tmp_path)
    streamed_call = replayer.scripts[0].calls[0]
    assert streamed_call.streamed
    assert len(streamed_call.chunks) == 5  # "echo parent turn 1" word by word, then [DONE]
    assert streamed_call.chunks[-1] == {"data": "[DONE]"}
    assert not replayer.scripts[1].calls[1].streamed

    async with _client(ReplayTransport(replayer)) as client:
        replayed = await _run(client, ("live-1", "live-2"), "pcpc")
    assert replayed == recorded
    replayer.assert_consumed()
    assert len(upstream.requests) == 4  # replay never reached the upstream


async def test_replayed_sse_arrives_event_by_event(tmp_path: Path) -> None:
    upstream = FakeUpstream()
    recorder = SessionRecorder()
    async with httpx.AsyncClient(transport=RecordingTransport(upstream.transport, recorder)) as c:
        body = {"model": "fake", "stream": True, "messages": [{"role": "user", "content": "a b"}]}
        response = await c.post(
            "http://h/v1/chat/completions", json=body, headers={SESSION_HEADER: "s"}
        )
        recorded_text = response.text
    assert SESSION_HEADER not in upstream.requests[0].headers  # stripped before forwarding
    replayer = SessionReplayer.from_logs(recorder.logs())
    async with (
        httpx.AsyncClient(transport=ReplayTransport(replayer)) as c,
        c.stream(
            "POST",
            "http://other-host/v1/chat/completions",
            json=body,
            headers={SESSION_HEADER: "x"},
        ) as streamed,
    ):
        assert streamed.headers["content-type"] == "text/event-stream"
        pieces = [piece async for piece in streamed.aiter_raw()]
    assert len(pieces) == 4  # three content events and [DONE], one chunk each
    assert b"".join(pieces).decode() == recorded_text


async def test_an_unrecorded_second_session_fails_through_the_sdk(tmp_path: Path) -> None:
    upstream = FakeUpstream()
    recorder = SessionRecorder()
    async with _client(RecordingTransport(upstream.transport, recorder)) as client:
        with session_scope("rec-parent"):
            await _ask(client, f"{CANARY_PROMPT} plan", stream=False)
    replayer = SessionReplayer.from_logs(recorder.logs())
    async with _client(ReplayTransport(replayer)) as client:
        with session_scope("live-parent"):
            await _ask(client, f"{CANARY_PROMPT} plan", stream=False)
        # the SDK may pass the transport error through or wrap it; either way the call fails
        with (
            session_scope("live-stranger"),
            pytest.raises((openai.APIConnectionError, SessionReplayMismatchError)),
        ):
            await _ask(client, f"{CANARY_PROMPT} plan", stream=False)
    with pytest.raises(SessionReplayMismatchError) as caught:
        replayer.assert_consumed()
    assert caught.value.code == SESSION_EXTRA
    assert '"live-stranger"' in str(caught.value)
    assert CANARY_PROMPT not in str(caught.value)


async def test_explicit_ordinal_header_binds_background_children(tmp_path: Path) -> None:
    # LLMREPLAY-11: child 2 makes its first call before child 1; ordinals pin the scripts
    upstream = FakeUpstream()
    recorder = SessionRecorder()
    async with _client(RecordingTransport(upstream.transport, recorder)) as client:
        for session_id in ("rec-parent", "rec-child-1", "rec-child-2"):
            with session_scope(session_id):
                await _ask(client, f"{session_id} work", stream=False)
    replayer = SessionReplayer.from_logs(recorder.logs())
    answers: dict[str, str] = {}
    async with _client(ReplayTransport(replayer)) as client:
        for live, recorded, ordinal in (
            ("p", "rec-parent", "0"),
            ("bg-2", "rec-child-2", "2"),
            ("bg-1", "rec-child-1", "1"),
        ):
            answers[live] = (
                await client.chat.completions.create(
                    model="fake",
                    messages=[{"role": "user", "content": f"{recorded} work"}],
                    extra_headers={SESSION_HEADER: live, ORDINAL_HEADER: ordinal},
                )
            ).choices[0].message.content or ""
    assert answers == {
        "p": "echo rec-parent work",
        "bg-2": "echo rec-child-2 work",
        "bg-1": "echo rec-child-1 work",
    }
    replayer.assert_consumed()


async def test_a_malformed_ordinal_header_fails_loudly() -> None:
    replayer = SessionReplayer(())
    async with httpx.AsyncClient(transport=ReplayTransport(replayer)) as client:
        with pytest.raises(SessionReplayMismatchError) as caught:
            await client.post(
                "http://h/v1/chat/completions",
                json={},
                headers={SESSION_HEADER: "s", ORDINAL_HEADER: "-1"},
            )
    assert caught.value.code == SESSION_ORDINAL
