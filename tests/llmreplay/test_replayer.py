"""The async seam: loud, metadata-only failures and the recorder's bookkeeping."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cassette_canonical import JsonValue
from cassette_provider.models import (
    ModelReplayError,
    SessionRecorder,
    SessionReplayer,
    SessionReplayMismatchError,
    session_scope,
)
from cassette_topology.sessions import (
    SESSION_EXHAUSTED,
    SESSION_EXTRA,
    SESSION_MIXED,
    SESSION_RECORD,
    SESSION_REQUEST_CHANGED,
    SESSION_REQUEST_INVALID,
    SESSION_UNCONSUMED,
)
from llmreplay.scenario import CANARY_PROMPT, CANARY_RESULT, LiveModel, model_request


async def _replayer(*sessions: tuple[str, tuple[str, ...]]) -> SessionReplayer:
    """Record sessions (in the given order, each call in turn) and replay from the logs."""
    recorder = SessionRecorder(LiveModel().stream)
    for session_id, tasks in sessions:
        for task in tasks:
            _ = [c async for c in recorder.stream(model_request(session_id, task), session_id)]
    return SessionReplayer.from_logs(recorder.logs())


async def _drain(stream: AsyncIterator[JsonValue]) -> list[JsonValue]:
    return [chunk async for chunk in stream]


def _assert_no_bodies(error: ModelReplayError) -> None:
    for text in (str(error), json.dumps(error.diagnostic)):
        assert CANARY_PROMPT not in text
        assert CANARY_RESULT not in text


async def test_extra_live_session_fails_loudly() -> None:
    # LLMREPLAY-8
    replayer = await _replayer(("p", ("plan",)), ("c", ("work",)))
    await _drain(replayer.stream(model_request("p", "plan"), "live-parent"))
    await _drain(replayer.stream(model_request("c", "work"), "live-child"))
    with pytest.raises(SessionReplayMismatchError) as caught:
        await _drain(replayer.stream(model_request("c", "work"), "live-unrecorded"))
    assert caught.value.code == SESSION_EXTRA
    assert caught.value.session == "live-unrecorded"
    assert caught.value.call_index == 1
    assert '"live-unrecorded" made model call 1' in str(caught.value)
    _assert_no_bodies(caught.value)


async def test_exhausted_script_fails_loudly() -> None:
    replayer = await _replayer(("p", ("plan", "finish")))
    for task in ("plan", "finish"):
        await _drain(replayer.stream(model_request("p", task), "live"))
    with pytest.raises(SessionReplayMismatchError) as caught:
        await _drain(replayer.stream(model_request("p", "finish"), "live"))
    assert caught.value.code == SESSION_EXHAUSTED
    assert 'session "live" made model call 3' in str(caught.value)
    assert caught.value.diagnostic is not None
    assert caught.value.diagnostic["callIndex"] == 3
    _assert_no_bodies(caught.value)


async def test_mixed_anonymous_and_identified_calls_fail_loudly() -> None:
    # LLMREPLAY-7
    replayer = await _replayer(("p", ("plan", "finish")), ("c", ("work",)))
    await _drain(replayer.stream(model_request("p", "plan")))
    with pytest.raises(SessionReplayMismatchError) as caught:
        await _drain(replayer.stream(model_request("c", "work"), "live-child"))
    assert caught.value.code == SESSION_MIXED
    assert '"live-child" made model call 1' in str(caught.value)
    _assert_no_bodies(caught.value)


async def test_changed_request_fails_loudly_and_teardown_raises_it_again() -> None:
    replayer = await _replayer(("p", ("plan", "finish")))
    await _drain(replayer.stream(model_request("p", "plan"), "live"))
    with pytest.raises(SessionReplayMismatchError) as caught:
        await _drain(replayer.stream(model_request("p", "a different finish"), "live"))
    assert caught.value.code == SESSION_REQUEST_CHANGED
    assert 'model call 2 of session "live"' in str(caught.value)
    _assert_no_bodies(caught.value)
    # a client that swallowed the transport error still fails at teardown
    with pytest.raises(SessionReplayMismatchError) as again:
        replayer.assert_consumed()
    assert again.value is caught.value


async def test_unconsumed_calls_fail_at_teardown() -> None:
    replayer = await _replayer(("p", ("plan", "finish")))
    await _drain(replayer.stream(model_request("p", "plan"), "live"))
    with pytest.raises(ModelReplayError) as caught:
        replayer.assert_consumed()
    assert caught.value.code == SESSION_UNCONSUMED


async def test_single_anonymous_session_replays_like_one_script() -> None:
    # LLMREPLAY-7: calls without a session id record and replay as one primary session
    recorder = SessionRecorder(LiveModel().stream)
    recorded = [await _drain(recorder.stream(model_request("solo", t))) for t in ("a", "b")]
    (solo,) = recorder.logs()
    assert solo.header.id == "anonymous"
    assert solo.header.is_primary
    replayer = SessionReplayer.from_logs(recorder.logs())
    replayed = [await _drain(replayer.stream(model_request("solo", t))) for t in ("a", "b")]
    assert replayed == recorded
    replayer.assert_consumed()


async def test_session_scope_supplies_the_session_id() -> None:
    # LLMREPLAY-1: the calling session rides on the request via a context variable
    replayer = await _replayer(("p", ("plan",)), ("c", ("work",)))
    with session_scope("live-parent"):
        await _drain(replayer.stream(model_request("p", "plan")))
    with session_scope("live-child"):
        chunks = await _drain(replayer.stream(model_request("c", "work")))
    assert chunks[-1] == {"delta": "c: work"}
    replayer.assert_consumed()


async def test_complete_records_and_replays_a_non_streamed_body() -> None:
    async def complete(request: JsonValue) -> JsonValue:
        return {"body": CANARY_RESULT, "echo": request}

    recorder = SessionRecorder(complete_model=complete)
    body = await recorder.complete({"q": 1}, "s")
    (log,) = recorder.logs()
    assert not log.calls[0].streamed
    replayer = SessionReplayer.from_logs(recorder.logs())
    assert await replayer.complete({"q": 1}, "other-live-id") == body


async def test_recorder_rejects_mixing_and_non_lossless_requests() -> None:
    recorder = SessionRecorder(LiveModel().stream)
    await _drain(recorder.stream(model_request("p", "plan"), "p"))
    with pytest.raises(ModelReplayError) as mixed:
        await _drain(recorder.stream(model_request("p", "plan")))
    assert mixed.value.code == SESSION_MIXED
    with pytest.raises(ModelReplayError) as invalid:
        recorder.begin_call({"temperature": float("nan")}, "p")
    assert invalid.value.code == SESSION_REQUEST_INVALID


async def test_recorder_keeps_what_an_early_stop_saw_and_drops_failed_calls() -> None:
    async def flaky(request: JsonValue) -> AsyncIterator[JsonValue]:
        yield {"delta": "first"}
        if request == {"fail": True}:
            raise RuntimeError("upstream broke")
        yield {"delta": "second"}

    recorder = SessionRecorder(flaky)
    stream = recorder.stream({"q": 1}, "s")
    assert isinstance(stream, AsyncGenerator)  # an async generator, so the caller can close it
    assert await anext(stream) == {"delta": "first"}
    await stream.aclose()
    with pytest.raises(RuntimeError):
        await _drain(recorder.stream({"fail": True}, "s"))
    (log,) = recorder.logs()
    assert [c.chunks for c in log.calls] == [({"delta": "first"},)]


async def test_recorder_refuses_to_lose_an_unfinished_call() -> None:
    recorder = SessionRecorder()
    recorder.begin_call({"q": 1}, "s")
    with pytest.raises(ModelReplayError) as caught:
        recorder.logs()
    assert caught.value.code == SESSION_RECORD


async def test_created_at_is_strictly_increasing_under_a_frozen_clock(tmp_path: Path) -> None:
    # children created within one clock tick keep their creation order (no id tiebreak needed)
    frozen = datetime(2026, 8, 18, 3, 0, 0, 123456, tzinfo=UTC)
    recorder = SessionRecorder(LiveModel().stream, clock=lambda: frozen)
    for session_id in ("p", "zeta", "alpha"):
        await _drain(recorder.stream(model_request(session_id, "x"), session_id))
    stamps = [log.header.created_at for log in recorder.logs()]
    assert stamps == [
        "2026-08-18T03:00:00.123Z",
        "2026-08-18T03:00:00.124Z",
        "2026-08-18T03:00:00.125Z",
    ]
    await recorder.write(tmp_path)
    replayer = await SessionReplayer.from_directory(tmp_path)
    assert [s.recorded_session for s in replayer.scripts] == ["p", "zeta", "alpha"]
