"""A secret split across two events of a streamed model response is redacted (issue 26).

The upstream streams the answer `done: <canary> ok` as SSE events cut in the middle of the
canary's longest random run. Per-event redaction never sees the whole secret; the recorder
joins the events' texts, redacts them and cuts them back at the original boundaries, so the
answer replayed from the log (the events' texts joined again) holds no canary run.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from cassette_provider.live.secret_shapes import SHAPES, expand_canary
from cassette_provider.models import (
    RecordingTransport,
    ReplayTransport,
    SessionRecorder,
    SessionReplayer,
    write_session_logs_sync,
)
from cassette_provider.models.stream_redaction import MARK, resplit

NAMES = sorted(shape.name for shape in SHAPES)
TEMPLATES = {shape.name: shape.canary for shape in SHAPES}
URL = "http://127.0.0.1:9/v1/chat/completions"
BODY = {"model": "local", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


def _split_canary(name: str) -> tuple[list[str], list[str]]:
    """The answer's SSE contents, cut inside the longest run, and the runs that must not survive."""
    secret, runs = expand_canary(TEMPLATES[name], random.Random(f"split/{name}").choice)
    longest = max(runs, key=len)
    cut = secret.index(longest) + len(longest) // 2
    answer = f"done: {secret} ok"
    at = len("done: ") + cut
    return [answer[:at], answer[at:-3], answer[-3:]], [run for run in runs if len(run) >= 8]


class _Events(httpx.AsyncByteStream):
    def __init__(self, contents: list[str]) -> None:
        self._events = [
            f"data: {json.dumps({'id': 'c1', 'choices': [{'delta': {'content': c}}]})}\n\n".encode()
            for c in contents
        ] + [b"data: [DONE]\n\n"]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event


def _upstream(contents: list[str]) -> httpx.MockTransport:
    def handle(_request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, stream=_Events(contents)
        )

    return httpx.MockTransport(handle)


def _answer_text(sse: str) -> str:
    """The streamed answer: every event's delta content, joined."""
    parts = []
    for line in sse.splitlines():
        if line.startswith("data: {"):
            parts.append(json.loads(line[6:])["choices"][0]["delta"]["content"])
    return "".join(parts)


async def _stream(client: httpx.AsyncClient) -> str:
    headers = {"x-cassette-session": "main"}
    async with client.stream("POST", URL, json=BODY, headers=headers) as response:
        return (await response.aread()).decode()


@pytest.mark.parametrize("name", NAMES)
async def test_a_secret_split_across_two_events_is_redacted(tmp_path: Path, name: str) -> None:
    contents, runs = _split_canary(name)
    recorder = SessionRecorder()
    async with httpx.AsyncClient(transport=RecordingTransport(_upstream(contents), recorder)) as c:
        live = await _stream(c)
    assert _answer_text(live) == "".join(contents)  # the live caller gets the real answer
    write_session_logs_sync(tmp_path, recorder.logs())

    replayer = await SessionReplayer.from_directory(tmp_path, allow_redacted_replay=True)
    async with httpx.AsyncClient(transport=ReplayTransport(replayer)) as client:
        replayed = _answer_text(await _stream(client))
    replayer.assert_consumed()
    assert [run for run in runs if run in replayed] == []
    assert MARK in replayed
    assert replayed.startswith("done: ")
    assert replayed.endswith(" ok")
    stored = b"".join(path.read_bytes() for path in tmp_path.rglob("*.jsonl"))
    assert [run for run in runs if run.encode() in stored] == []


def test_resplit_keeps_boundaries_and_puts_the_mark_where_the_secret_began() -> None:
    pieces = ["key AB", "CD", "EF end"]
    assert resplit(pieces, f"key {MARK} end") == [f"key {MARK}", "", " end"]
    assert resplit(["a", "b"], "ab") == ["a", "b"]
    assert resplit(["x ", "AB", "CD y"], f"x {MARK} y") == ["x ", MARK, " y"]
    # an alignment that cannot be found keeps every redaction, in the first piece
    assert resplit(["abc", "def"], "zzz") == ["zzz", ""]
