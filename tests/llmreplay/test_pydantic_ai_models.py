"""pydantic-ai's OpenAI model through the session transports, children flipped (issue 13).

The same scenario as test_concurrent_children, driven by `pydantic_ai.Agent`s whose
`OpenAIChatModel` talks to the local OpenAI-compatible server through RecordingTransport, then
to nothing but ReplayTransport. The parent and two children each run in their own session;
replay flips the children's order and declares no ordinals. A global-cursor transport fails
the same flip, so the test can tell the two apart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import httpx
import pytest
from cassette_provider.models import SessionRecorder, SessionReplayer, session_scope
from cassette_provider.models.transport import RecordingTransport, ReplayTransport
from llmreplay.openai_local import (
    DISTINCT,
    FLIPPED_ORDER,
    RECORDED_ORDER,
    GlobalCursorTransport,
    LocalOpenAI,
    Turn,
    sdk_client,
)

pydantic_ai = pytest.importorskip("pydantic_ai")  # the pydantic-ai extra
from pydantic_ai.models.openai import OpenAIChatModel  # noqa: E402
from pydantic_ai.providers.openai import OpenAIProvider  # noqa: E402


async def _run(
    transport: httpx.AsyncBaseTransport, order: Sequence[Turn], run: str, *, stream: bool
) -> dict[str, list[str]]:
    """Each role is a pydantic-ai agent in its own task and session; events force `order`."""
    client = sdk_client(transport)
    model = OpenAIChatModel("local", provider=OpenAIProvider(openai_client=client))
    gates = [asyncio.Event() for _ in range(len(order) + 1)]
    answers: dict[str, list[str]] = {role: [] for role in DISTINCT.questions}

    async def role_task(role: str) -> None:
        agent = pydantic_ai.Agent(model, name=role)
        with session_scope(f"{run}-{role}"):
            for position, (who, turn) in enumerate(order):
                if who != role:
                    continue
                await gates[position].wait()
                question = DISTINCT.questions[role][turn - 1]
                if stream:
                    async with agent.run_stream(question) as streamed:
                        answers[role].append(await streamed.get_output())
                else:
                    answers[role].append((await agent.run(question)).output)
                gates[position + 1].set()

    gates[0].set()
    async with client, asyncio.TaskGroup() as group:
        for role in DISTINCT.questions:
            group.create_task(role_task(role))
    return answers


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_pydantic_ai_children_replay_flipped_without_ordinals(
    tmp_path: Path, stream: bool
) -> None:
    server = LocalOpenAI()
    recorder = SessionRecorder()
    recorded = await _run(
        RecordingTransport(server.transport, recorder), RECORDED_ORDER, "rec", stream=stream
    )
    assert recorded["child-beta"] == ["echo child-beta: run the tests", "echo child-beta: report"]
    await recorder.write(tmp_path)
    calls = len(server.exchanges)

    replayer = await SessionReplayer.from_directory(tmp_path)
    replayed = await _run(ReplayTransport(replayer), FLIPPED_ORDER, "live", stream=stream)
    assert replayed == recorded
    replayer.assert_consumed()
    assert len(server.exchanges) == calls  # replay never reached the server

    # The contrast: one global cursor hands each child its sibling's answer.
    cursor = GlobalCursorTransport(server.exchanges)
    crossed = await _run(cursor, FLIPPED_ORDER, "cursor", stream=stream)
    assert crossed["child-beta"] == recorded["child-alpha"]
    assert crossed != recorded
