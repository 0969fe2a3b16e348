"""A local OpenAI-compatible chat-completions server (an httpx.MockTransport) and SDK helpers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import httpx
import openai
from cassette_provider.models import session_scope

if TYPE_CHECKING:
    import httpx2

#: A secret-looking marker that must never appear in a replay error.
CANARY = "CANARY-BODY-7f31"


@dataclass(frozen=True)
class Exchange:
    """One call the local server answered, in global arrival order."""

    question: str
    content_type: str
    body: bytes


async def _sse(words: list[str]) -> AsyncIterator[bytes]:
    """Stream the answer word by word as chat.completion.chunk events, then [DONE]."""
    for index, word in enumerate(words):
        chunk = {
            "id": "chatcmpl-local",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "local",
            "choices": [{"index": 0, "delta": {"content": ("" if index == 0 else " ") + word}}],
        }
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _completion(model: str, text: str) -> dict[str, object]:
    """A non-streamed chat.completion body."""
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": text},
            }
        ],
    }


@dataclass
class LocalOpenAI:
    """Answers `echo <question>` (streamed when asked); logs every exchange in arrival order."""

    exchanges: list[Exchange] = field(default_factory=list)

    @property
    def transport(self) -> httpx.MockTransport:
        """The server as an httpx transport (the 'network' the recording transport forwards to)."""
        return httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        question = str(body["messages"][-1]["content"])
        words = ["echo", *question.split()]
        if body.get("stream"):
            content = b"".join([piece async for piece in _sse(words)])
            self.exchanges.append(Exchange(question, "text/event-stream", content))
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, stream=_Replay(content)
            )
        payload = json.dumps(_completion(str(body["model"]), " ".join(words))).encode()
        self.exchanges.append(Exchange(question, "application/json", payload))
        return httpx.Response(200, headers={"content-type": "application/json"}, content=payload)


class _Replay(httpx.AsyncByteStream):
    """Yield prepared SSE bytes event by event."""

    def __init__(self, content: bytes) -> None:
        self._events = [event + b"\n\n" for event in content.split(b"\n\n") if event]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event


class GlobalCursorTransport(httpx.AsyncBaseTransport):
    """The contrast: the Nth call of any session gets the Nth recorded response."""

    def __init__(self, exchanges: Sequence[Exchange]) -> None:
        self._exchanges = list(exchanges)
        self._cursor = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        exchange = self._exchanges[self._cursor]
        self._cursor += 1
        headers = {"content-type": exchange.content_type}
        if exchange.content_type == "text/event-stream":
            return httpx.Response(200, headers=headers, stream=_Replay(exchange.body))
        return httpx.Response(200, headers=headers, content=exchange.body)


def sdk_http_client(transport: httpx.AsyncBaseTransport) -> httpx2.AsyncClient:
    """An httpx client over `transport` for the SDK, which types httpx2 but takes httpx too."""
    return cast("httpx2.AsyncClient", httpx.AsyncClient(transport=transport))


def sdk_client(transport: httpx.AsyncBaseTransport) -> openai.AsyncOpenAI:
    """An openai SDK client whose HTTP goes through `transport`; no retries (replay rule)."""
    return openai.AsyncOpenAI(
        api_key="sk-local-test",
        base_url="http://127.0.0.1:9/v1",
        http_client=sdk_http_client(transport),
        max_retries=0,
    )


async def ask(client: openai.AsyncOpenAI, question: str, *, stream: bool) -> str:
    """One chat completion through the SDK, streamed (SSE) or not; the answer text."""
    messages: list[openai.types.chat.ChatCompletionMessageParam] = [
        {"role": "user", "content": question}
    ]
    if not stream:
        completion = await client.chat.completions.create(model="local", messages=messages)
        return completion.choices[0].message.content or ""
    parts: list[str] = []
    response = await client.chat.completions.create(model="local", messages=messages, stream=True)
    async for chunk in response:
        if chunk.choices and chunk.choices[0].delta.content:
            parts.append(chunk.choices[0].delta.content)
    return "".join(parts)


#: One model call of a scenario: the role making it and its 1-based turn.
Turn = tuple[str, int]


@dataclass(frozen=True)
class Conversation:
    """Who asks what: each role's questions in its own order, plus optional declared ordinals."""

    questions: dict[str, tuple[str, ...]]
    ordinals: dict[str, int] = field(default_factory=dict)


async def converse(
    client: openai.AsyncOpenAI,
    conversation: Conversation,
    order: Sequence[Turn],
    ids: dict[str, str],
    *,
    stream: bool,
) -> dict[str, list[str]]:
    """Every role is its own concurrent task in its own session; events force `order`."""
    gates = [asyncio.Event() for _ in range(len(order) + 1)]
    answers: dict[str, list[str]] = {role: [] for role in conversation.questions}

    async def role_task(role: str) -> None:
        with session_scope(ids[role], conversation.ordinals.get(role)):
            for position, (who, turn) in enumerate(order):
                if who != role:
                    continue
                await gates[position].wait()
                question = conversation.questions[role][turn - 1]
                answers[role].append(await ask(client, question, stream=stream))
                gates[position + 1].set()

    gates[0].set()
    async with asyncio.TaskGroup() as group:
        for role in conversation.questions:
            group.create_task(role_task(role))
    return answers


#: The scenario the concurrency tests share: a parent and two children, recorded in one
#: order and replayed with the children flipped.
RECORDED_ORDER: tuple[Turn, ...] = (
    ("parent", 1),
    ("child-alpha", 1),
    ("child-beta", 1),
    ("child-alpha", 2),
    ("child-beta", 2),
    ("parent", 2),
)
FLIPPED_ORDER: tuple[Turn, ...] = (
    ("parent", 1),
    ("child-beta", 1),
    ("child-alpha", 1),
    ("child-beta", 2),
    ("child-alpha", 2),
    ("parent", 2),
)
DISTINCT = Conversation(
    {
        "parent": ("parent: plan the review", "parent: summarize"),
        "child-alpha": ("child-alpha: read the code", "child-alpha: report"),
        "child-beta": ("child-beta: run the tests", "child-beta: report"),
    }
)
