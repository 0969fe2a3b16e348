"""Per-call overhead of the model replay transport vs calling the local server directly (ratios).

Usage: uv run --no-sync python scripts/bench_models.py [N ...]   (default: 300 3000)

A local OpenAI-compatible chat-completions server (an in-process httpx.MockTransport) answers
N calls made by a parent and two children, one session each, concurrently. The floor is the
same N calls straight to the server through an httpx client; the replay run sends them through
`ReplayTransport` (binding by request, per-session cursors), which answers from the recorded
scripts and never reaches the server. Both JSON and SSE responses are measured; each figure is
the best of three runs, and the ratio replay / direct is printed per size and mode.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable
from typing import Final

import httpx
from cassette_provider.models import SessionRecorder, SessionReplayer
from cassette_provider.models.transport import SESSION_HEADER, RecordingTransport, ReplayTransport

SESSIONS: Final = ("parent", "child-alpha", "child-beta")
REPEATS: Final = 3
URL: Final = "http://127.0.0.1:9/v1/chat/completions"


async def _events(words: list[str]) -> AsyncIterator[bytes]:
    """The answer as chat.completion.chunk events, then [DONE]."""
    for index, word in enumerate(words):
        delta = {"content": ("" if index == 0 else " ") + word}
        chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]}
        yield f"data: {json.dumps(chunk)}\n\n".encode()
    yield b"data: [DONE]\n\n"


async def _serve(request: httpx.Request) -> httpx.Response:
    """The local server: echo the question, streamed when asked."""
    body = json.loads(request.content)
    words = ["echo", *str(body["messages"][-1]["content"]).split()]
    if body.get("stream"):
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=_events(words)
        )
    message = {"role": "assistant", "content": " ".join(words)}
    return httpx.Response(
        200, json={"object": "chat.completion", "choices": [{"message": message}]}
    )


def _body(session: str, turn: int, stream: bool) -> dict[str, object]:
    """The request a session sends at one of its turns."""
    question = f"{session}: turn {turn} of the benchmark conversation"
    return {"model": "local", "stream": stream, "messages": [{"role": "user", "content": question}]}


async def _conversation(transport: httpx.AsyncBaseTransport, count: int, stream: bool) -> float:
    """Seconds for `count` calls spread over the sessions, each session its own task."""
    per_session = count // len(SESSIONS)

    async def session(client: httpx.AsyncClient, name: str) -> None:
        for turn in range(1, per_session + 1):
            response = await client.post(
                URL, json=_body(name, turn, stream), headers={SESSION_HEADER: name}
            )
            await response.aread()
            assert response.status_code == 200

    async with httpx.AsyncClient(transport=transport) as client:
        began = time.perf_counter()
        await asyncio.gather(*(session(client, name) for name in SESSIONS))
        return time.perf_counter() - began


async def _best(make: Callable[[], httpx.AsyncBaseTransport], count: int, stream: bool) -> float:
    """The best of a few runs, each with a fresh transport."""
    return min([await _conversation(make(), count, stream) for _ in range(REPEATS)])


async def _measure(count: int, stream: bool) -> tuple[float, float, float]:
    """Direct, recording and replay seconds for `count` calls."""
    direct = await _best(lambda: httpx.MockTransport(_serve), count, stream)
    recorder = SessionRecorder()
    record = await _conversation(
        RecordingTransport(httpx.MockTransport(_serve), recorder), count, stream
    )
    logs = recorder.logs()
    replay = await _best(lambda: ReplayTransport(SessionReplayer.from_logs(logs)), count, stream)
    return direct, record, replay


async def main(sizes: list[int]) -> None:
    print("calls  mode  direct_s  record_s  replay_s  record/direct  replay/direct")
    for count in sizes:
        for stream in (False, True):
            direct, record, replay = await _measure(count, stream)
            mode = "sse " if stream else "json"
            print(
                f"{count:5d}  {mode}  {direct:8.3f}  {record:8.3f}  {replay:8.3f}  "
                f"{record / direct:13.2f}  {replay / direct:13.2f}"
            )
    print(
        "ratio = time through the cassette transport / the same calls straight to the local "
        "server (floor measured in this run); replay makes no server call at all"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sizes", nargs="*", type=int, help="calls per run (default: 300 3000)")
    asyncio.run(main(parser.parse_args().sizes or [300, 3000]))
