"""Issue 13 acceptance: the openai SDK, a parent and two concurrent children, children flipped.

Recorded through `RecordingTransport` against a local OpenAI-compatible server, replayed
through `ReplayTransport` with the two children's calls in the opposite order. Binding by
who asks and what is asked (the default) passes without ordinals; the design note's
first-call binding and a global-cursor replayer both fail the same flip.
"""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest
from cassette_provider.models import (
    SessionRecorder,
    SessionReplayer,
    SessionReplayMismatchError,
    harvest_session_logs,
    session_scope,
)
from cassette_provider.models.transport import RecordingTransport, ReplayTransport
from cassette_topology.sessions import SESSION_AMBIGUOUS, SESSION_REQUEST_CHANGED
from llmreplay.openai_local import (
    CANARY,
    DISTINCT,
    FLIPPED_ORDER,
    RECORDED_ORDER,
    Conversation,
    GlobalCursorTransport,
    LocalOpenAI,
    Turn,
    ask,
    converse,
    sdk_client,
)

#: Both children open with the same question and then diverge.
SAME_OPENING = Conversation(
    {
        "parent": ("parent: plan the review", "parent: summarize"),
        "child-alpha": ("research the bug", "alpha: report"),
        "child-beta": ("research the bug", "beta: report"),
    }
)


def _recorded_ids(conversation: Conversation) -> dict[str, str]:
    return {role: f"rec-{role}" for role in conversation.questions}


def _live_ids(conversation: Conversation) -> dict[str, str]:
    return {role: f"live-{role}-run2" for role in conversation.questions}


async def _record(
    tmp_path: Path, conversation: Conversation, *, stream: bool
) -> tuple[dict[str, list[str]], LocalOpenAI]:
    server = LocalOpenAI()
    recorder = SessionRecorder()
    async with sdk_client(RecordingTransport(server.transport, recorder)) as client:
        answers = await converse(
            client, conversation, RECORDED_ORDER, _recorded_ids(conversation), stream=stream
        )
    await recorder.write(tmp_path)
    return answers, server


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_flipped_children_replay_without_ordinals(tmp_path: Path, stream: bool) -> None:
    recorded, server = await _record(tmp_path, DISTINCT, stream=stream)
    assert recorded["child-beta"] == ["echo child-beta: run the tests", "echo child-beta: report"]
    replayer = await SessionReplayer.from_directory(tmp_path)
    assert replayer.binding == "by-request"
    async with sdk_client(ReplayTransport(replayer)) as client:
        replayed = await converse(
            client, DISTINCT, FLIPPED_ORDER, _live_ids(DISTINCT), stream=stream
        )
    assert replayed == recorded
    replayer.assert_consumed()
    assert len(server.exchanges) == len(RECORDED_ORDER)  # replay never reached the server


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_first_call_binding_fails_the_same_flip(tmp_path: Path, stream: bool) -> None:
    # the design note's rule, kept as a named policy: child-beta calls first, gets alpha's script
    await _record(tmp_path, DISTINCT, stream=stream)
    replayer = await SessionReplayer.from_directory(tmp_path, binding="first-call")
    async with sdk_client(ReplayTransport(replayer)) as client:
        with pytest.raises(ExceptionGroup):
            await converse(client, DISTINCT, FLIPPED_ORDER, _live_ids(DISTINCT), stream=stream)
    failure = replayer.failures[0]
    assert failure.code == SESSION_REQUEST_CHANGED
    assert 'model call 1 of session "live-child-beta-run2"' in str(failure)
    assert '(recorded session "rec-child-alpha")' in str(failure)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_global_cursor_replayer_fails_the_same_flip(tmp_path: Path, stream: bool) -> None:
    recorded, server = await _record(tmp_path, DISTINCT, stream=stream)
    async with sdk_client(GlobalCursorTransport(server.exchanges)) as client:
        replayed = await converse(
            client, DISTINCT, FLIPPED_ORDER, _live_ids(DISTINCT), stream=stream
        )
    assert replayed != recorded
    assert replayed["child-beta"][0] == recorded["child-alpha"][0]  # beta got alpha's answer
    assert replayed["child-alpha"][0] == recorded["child-beta"][0]


async def test_identical_openings_with_different_scripts_are_refused_at_the_first_call(
    tmp_path: Path,
) -> None:
    await _record(tmp_path, SAME_OPENING, stream=False)
    replayer = await SessionReplayer.from_directory(tmp_path)
    async with sdk_client(ReplayTransport(replayer)) as client:
        with session_scope("live-parent"):
            assert await ask(client, "parent: plan the review", stream=False)
        with (
            session_scope("live-beta"),
            pytest.raises((openai.APIConnectionError, SessionReplayMismatchError)),
        ):
            await ask(client, "research the bug", stream=False)
    with pytest.raises(SessionReplayMismatchError) as caught:
        replayer.assert_consumed()
    error = caught.value
    assert error.code == SESSION_AMBIGUOUS
    assert (error.session, error.call_index) == ("live-beta", 1)
    assert '"rec-child-alpha"' in str(error)
    assert '"rec-child-beta"' in str(error)
    assert "research the bug" not in str(error)
    assert "research the bug" not in json.dumps(error.diagnostic)


@pytest.mark.parametrize("order", [RECORDED_ORDER, FLIPPED_ORDER], ids=["same", "flipped"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_declared_ordinals_resolve_identical_openings_in_either_order(
    tmp_path: Path, order: tuple[Turn, ...], stream: bool
) -> None:
    pinned = Conversation(SAME_OPENING.questions, {"child-alpha": 1, "child-beta": 2})
    recorded, _server = await _record(tmp_path, pinned, stream=stream)
    headers = {
        log.header.id: log.header.first_call_ordinal for log in await harvest_session_logs(tmp_path)
    }
    assert headers == {"rec-parent": None, "rec-child-alpha": 1, "rec-child-beta": 2}
    replayer = await SessionReplayer.from_directory(tmp_path)
    async with sdk_client(ReplayTransport(replayer)) as client:
        replayed = await converse(client, pinned, order, _live_ids(pinned), stream=stream)
    assert replayed == recorded
    assert replayed["child-beta"][1] == "echo beta: report"
    replayer.assert_consumed()


async def test_identical_scripts_tie_in_first_call_order(tmp_path: Path) -> None:
    twins = Conversation(
        {
            "parent": ("parent: plan", "parent: summarize"),
            "child-alpha": ("research", "report"),
            "child-beta": ("research", "report"),
        }
    )
    recorded, _server = await _record(tmp_path, twins, stream=True)
    replayer = await SessionReplayer.from_directory(tmp_path)
    async with sdk_client(ReplayTransport(replayer)) as client:
        replayed = await converse(client, twins, FLIPPED_ORDER, _live_ids(twins), stream=True)
    assert replayed == recorded
    replayer.assert_consumed()


async def test_no_error_carries_a_body(tmp_path: Path) -> None:
    canaried = Conversation(
        {"parent": (f"{CANARY} plan", f"{CANARY} sum"), "child-alpha": (f"{CANARY} x", "y")}
    )
    recorded_order: tuple[Turn, ...] = (("parent", 1), ("child-alpha", 1))
    server = LocalOpenAI()
    recorder = SessionRecorder()
    async with sdk_client(RecordingTransport(server.transport, recorder)) as client:
        await converse(client, canaried, recorded_order, _recorded_ids(canaried), stream=False)
    replayer = SessionReplayer.from_logs(recorder.logs())
    async with sdk_client(ReplayTransport(replayer)) as client:
        with (
            session_scope("p"),
            pytest.raises((openai.APIConnectionError, SessionReplayMismatchError)),
        ):
            await ask(client, f"{CANARY} unrecorded", stream=False)
    failure = replayer.failures[0]
    for text in (str(failure), json.dumps(failure.diagnostic)):
        assert CANARY not in text
        assert "echo" not in text
