"""The design note's nested scenarios: recorded, then replayed with a different interleaving."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from cassette_canonical import JsonValue
from cassette_provider.models import (
    SessionRecorder,
    SessionReplayer,
    SessionReplayMismatchError,
    harvest_session_logs,
    load_session_log,
)
from cassette_topology.sessions import SESSION_AMBIGUOUS, SESSION_REQUEST_CHANGED
from llmreplay.scenario import (
    GlobalCursorReplayer,
    LiveModel,
    Scenario,
    Step,
    StreamSeam,
    drive_concurrently,
    drive_sequentially,
    fresh_ids,
)

Driver = Callable[
    [Scenario, StreamSeam, Sequence[Step], dict[str, str]], Awaitable[dict[str, list[str]]]
]

SPAWN_ONE = Scenario(  # subagent-spawn-in-process: 2 sessions
    tasks={"parent": ("plan", "summarize"), "child": ("research", "report")},
    recorded_order=(("parent", 1), ("child", 1), ("child", 2), ("parent", 2)),
)
SPAWN_ONE_REPLAY = (("parent", 1), ("child", 1), ("parent", 2), ("child", 2))

SPAWN_MULTI = Scenario(  # subagent-multi: 3 sessions, two children under one parent
    tasks={
        "parent": ("plan", "delegate review", "summarize"),
        "child-a": ("read code", "report a"),
        "child-b": ("run tests", "report b"),
    },
    recorded_order=(
        ("parent", 1),
        ("child-a", 1),
        ("child-a", 2),
        ("parent", 2),
        ("child-b", 1),
        ("child-b", 2),
        ("parent", 3),
    ),
)
SPAWN_MULTI_REPLAY = (
    ("parent", 1),
    ("child-a", 1),
    ("child-b", 1),
    ("parent", 2),
    ("child-b", 2),
    ("child-a", 2),
    ("parent", 3),
)


async def _record(scenario: Scenario, directory: Path) -> tuple[dict[str, list[str]], LiveModel]:
    """Record the scenario in its recorded order into session logs under `directory`."""
    live = LiveModel()
    recorder = SessionRecorder(live.stream)

    def seam(request: JsonValue, session: str | None) -> AsyncIterator[JsonValue]:
        return recorder.stream(request, session)

    ids = {role: f"recorded-{role}" for role in scenario.tasks}
    answers = await drive_sequentially(scenario, seam, scenario.recorded_order, ids)
    await recorder.write(directory)
    return answers, live


def _assert_own_scripts(
    scenario: Scenario, expected: dict[str, list[str]], replayed: dict[str, list[str]]
) -> None:
    """Every session received exactly its own recorded answers, in its own order."""
    for role, answers in replayed.items():
        assert answers == expected[role], f"{role} received another session's script"
        for answer, task in zip(answers, scenario.tasks[role], strict=True):
            assert answer.endswith(f"{role}: {task}")


@pytest.mark.parametrize(
    ("scenario", "replay_order"),
    [(SPAWN_ONE, SPAWN_ONE_REPLAY), (SPAWN_MULTI, SPAWN_MULTI_REPLAY)],
    ids=["spawn-one-child", "spawn-two-children"],
)
@pytest.mark.parametrize("drive", [drive_sequentially, drive_concurrently])
async def test_each_session_replays_its_own_script(
    tmp_path: Path, scenario: Scenario, replay_order: tuple[Step, ...], drive: Driver
) -> None:
    # LLMREPLAY-3, LLMREPLAY-5, LLMREPLAY-6, LLMREPLAY-9
    expected, live = await _record(scenario, tmp_path)
    assert len(live.calls) == len(scenario.recorded_order)
    replayer = await SessionReplayer.from_directory(tmp_path)
    assert [s.recorded_session for s in replayer.scripts] == [
        f"recorded-{role}" for role in scenario.tasks
    ]

    def seam(request: JsonValue, session: str | None) -> AsyncIterator[JsonValue]:
        return replayer.stream(request, session)

    replayed = await drive(scenario, seam, replay_order, fresh_ids(scenario))
    _assert_own_scripts(scenario, expected, replayed)
    replayer.assert_consumed()
    assert len(live.calls) == len(scenario.recorded_order)  # replay made no live call


@pytest.mark.parametrize(
    ("scenario", "replay_order"),
    [(SPAWN_ONE, SPAWN_ONE_REPLAY), (SPAWN_MULTI, SPAWN_MULTI_REPLAY)],
    ids=["spawn-one-child", "spawn-two-children"],
)
async def test_a_global_cursor_replayer_fails_the_same_test(
    tmp_path: Path, scenario: Scenario, replay_order: tuple[Step, ...]
) -> None:
    # the contrast: one global cursor hands a child the parent's script and vice versa
    expected, live = await _record(scenario, tmp_path)
    contrast = GlobalCursorReplayer(live.calls)
    replayed = await drive_sequentially(
        scenario, contrast.stream, replay_order, fresh_ids(scenario)
    )
    with pytest.raises(AssertionError, match="received another session's script"):
        _assert_own_scripts(scenario, expected, replayed)
    owner_of = {
        f"answer to {role}: {task}": role
        for role, tasks in scenario.tasks.items()
        for task in tasks
    }
    received = {
        (role, next(o for text, o in owner_of.items() if answer.endswith(text)))
        for role, answers in replayed.items()
        for answer in answers
    }
    assert any(role != owner for role, owner in received), "no session got another's answer"


async def test_fork_child_replays_only_its_own_responses(tmp_path: Path) -> None:
    # LLMREPLAY-4: the fork child's log begins with the parent's seeded prefix
    scenario = Scenario(
        tasks={"parent": ("plan", "draft", "finish"), "fork": ("branch idea", "branch result")},
        recorded_order=(),
    )
    live = LiveModel()
    recorder = SessionRecorder(live.stream)

    def record(request: JsonValue, session: str | None) -> AsyncIterator[JsonValue]:
        return recorder.stream(request, session)

    ids = {"parent": "recorded-parent", "fork": "recorded-fork"}
    expected = await drive_sequentially(scenario, record, [("parent", 1), ("parent", 2)], ids)
    recorder.declare_session("recorded-fork", parent_session="recorded-parent", fork=True)
    more = await drive_sequentially(
        scenario, record, [("fork", 1), ("parent", 3), ("fork", 2)], ids
    )
    expected["parent"] += more["parent"]
    expected["fork"] = more["fork"]
    paths = await recorder.write(tmp_path)

    fork_log = load_session_log(paths[1])
    assert fork_log.header.parent_session == "recorded-parent"
    assert fork_log.header.seed_calls == 2
    assert len(fork_log.calls) == 4
    assert fork_log.calls[0].chunks == load_session_log(paths[0]).calls[0].chunks

    replayer = await SessionReplayer.from_directory(tmp_path)
    assert len(replayer.scripts[1].calls) == 2

    def replay(request: JsonValue, session: str | None) -> AsyncIterator[JsonValue]:
        return replayer.stream(request, session)

    order = [("parent", 1), ("parent", 2), ("fork", 1), ("fork", 2), ("parent", 3)]
    replayed = await drive_sequentially(scenario, replay, order, fresh_ids(scenario))
    _assert_own_scripts(scenario, expected, replayed)
    replayer.assert_consumed()

    # without the persisted cut the child's script would start with the parent's settlement
    uncut = [
        replace(log, header=replace(log.header, seed_calls=None))
        for log in await harvest_session_logs(tmp_path)
    ]
    naive = SessionReplayer.from_logs(uncut, binding="first-call")
    ids = fresh_ids(scenario)
    for step in [("parent", 1), ("parent", 2)]:
        _ = [c async for c in naive.stream(scenario.request(step), ids["parent"])]
    with pytest.raises(SessionReplayMismatchError) as caught:
        _ = [c async for c in naive.stream(scenario.request(("fork", 1)), ids["fork"])]
    assert caught.value.code == SESSION_REQUEST_CHANGED
    # binding by request refuses the uncut logs at once: two different scripts begin alike
    by_request = SessionReplayer.from_logs(uncut)
    with pytest.raises(SessionReplayMismatchError) as refused:
        _ = [c async for c in by_request.stream(scenario.request(("parent", 1)), ids["parent"])]
    assert refused.value.code == SESSION_AMBIGUOUS
