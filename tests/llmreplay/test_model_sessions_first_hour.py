"""The model_sessions fixture's first-hour traps, from the user's side (issue 27).

A parent and a child that both call a model, through `model_sessions` and the subagent
cassette: replay-only mode without logs names the command that records them; a changed child
prompt is one report (FAILED, no ERROR beside it) naming the closest recorded call; a changed
child model prompt under a fresh session id names the closest script by its recorded session
name and the command that re-records; a failure while recording is not called a replay
failure.
"""

from __future__ import annotations

import json

import pytest
from support.user_project import run_user_project as run

CONFTEST = """
import httpx
import pytest
from cassette_provider import FunctionProvider, ProviderRegistry

CLIENT = {}


def model_api(request):
    return httpx.Response(200, json={"answer": "ok"})


async def run_child(request, child):
    reply = await CLIENT["client"].post("/v1/chat", json={"prompt": "child"})
    return {"output": [{"type": "text", "text": reply.json()["answer"]}], "stopReason": "completed"}


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

FLOW = """
import os

import httpx
from cassette_provider import SimpleAgent, StartRequest
from cassette_provider.models import session_scope

import conftest

CHILD = os.environ.get("CHILD_PROMPT", "child question")


async def test_flow(cassette_registry, subagent_cassette, model_sessions):
    transport = model_sessions.transport(httpx.MockTransport(conftest.model_api))
    client = httpx.AsyncClient(transport=transport, base_url="http://model")
    conftest.CLIENT["client"] = client
    parent = SimpleAgent(options={"agent": "planner"})
    with session_scope("planner"):
        await client.post("/v1/chat", json={"prompt": "plan"})
    prompt = [{"type": "text", "text": CHILD}]
    run = await cassette_registry.start(
        "cassette", StartRequest(prompt=prompt, parent=parent, label="child")
    )
    try:
        await run.result
    finally:
        await run.dispose()
"""

RECORD = "pytest --subagent-cassette-mode=once test_flow.py::test_flow"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("CHILD_PROMPT", raising=False)
    monkeypatch.delenv("SUBAGENT_CASSETTE_MODE", raising=False)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_flow=FLOW)
    return pytester


def test_replay_only_without_logs_names_the_command_that_records_them(
    project: pytest.Pytester,
) -> None:
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    logs = project.path / "cassettes" / "test_flow" / "test_flow.sessions"
    for log in logs.iterdir():
        log.unlink()
    logs.rmdir()
    result = run(project)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [f"no model session logs at *test_flow.sessions; record them with: {RECORD}"]
    )


def test_a_changed_child_prompt_is_one_failure_naming_the_closest_call(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    monkeypatch.setenv("CHILD_PROMPT", "a changed child question")
    result = run(project)
    result.assert_outcomes(failed=1)  # not FAILED and ERROR
    result.stdout.fnmatch_lines(
        [
            "request-changed: closest root/child-*~1 (available), promptBytes *",
            "If the change is intended, record again: pytest --subagent-cassette-mode=rewrite "
            "test_flow.py::test_flow",
        ]
    )
    output = result.stdout.str()
    assert "not fully consumed" not in output  # the model scripts' leftovers: same failure
    assert "were not consumed" not in output  # the subagent cassette's leftovers: same failure


def test_a_failure_while_recording_is_not_called_a_replay_failure(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_flow="""
import httpx
from cassette_provider.models import session_scope


async def test_flow(model_sessions):
    transport = model_sessions.transport(httpx.MockTransport(lambda r: httpx.Response(200)))
    async with httpx.AsyncClient(transport=transport, base_url="http://model") as client:
        await client.post("/v1/chat", json={"prompt": "anonymous first"})
        with session_scope("planner"):
            await client.post("/v1/chat", json={"prompt": "then identified"})
"""
    )
    result = run(project, "--subagent-cassette-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["model recording failed: *", "hint: the parent's model calls*"])
    assert "model replay failed" not in result.stdout.str()


FRESH_IDS = """
import json
import os
import uuid

import httpx
from cassette_provider.models import session_scope


def model_api(request):
    return httpx.Response(200, json={"answer": "ok"})


async def test_flow(model_sessions):
    transport = model_sessions.transport(httpx.MockTransport(model_api))
    async with httpx.AsyncClient(transport=transport, base_url="http://model") as client:
        with session_scope("planner"):
            await client.post("/v1/chat", json={"prompt": "plan"})
        with session_scope(f"child-{uuid.uuid4().hex}"):  # a fresh id on every run
            question = os.environ.get("CHILD_PROMPT", "child question")
            await client.post("/v1/chat", json={"prompt": question})
"""


def test_a_changed_child_model_prompt_names_the_closest_script_by_its_recorded_name(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_fresh=FRESH_IDS)
    run(project, "--subagent-cassette-mode=once", "test_fresh.py").assert_outcomes(passed=1)
    child_log = project.path / "cassettes" / "test_fresh" / "test_flow.sessions" / "session.1.jsonl"
    recorded = json.loads(child_log.read_text("utf-8").splitlines()[0])["id"]
    monkeypatch.setenv("CHILD_PROMPT", "a changed child question")
    result = run(project, "test_fresh.py")
    result.assert_outcomes(failed=1)  # one report: no ERROR for the unconsumed script
    result.stdout.fnmatch_lines(
        [
            "model replay failed: model call 1 differs from the closest recording, script 1 "
            f'(recorded session "{recorded}"): request sha256:*, recorded sha256:*; '
            'live session "child-*" made model call 1, *',
            "If the change is intended, record again: pytest --subagent-cassette-mode=rewrite "
            "test_fresh.py::test_flow",
        ]
    )
    output = result.stdout.str()
    assert output.index(recorded) < output.index('live session "child-')  # the stable name leads
    assert "changed child question" not in output  # no request body in the report
    # Doing what the report says records the change, and the next run replays it.
    run(project, "--subagent-cassette-mode=rewrite", "test_fresh.py").assert_outcomes(passed=1)
    run(project, "test_fresh.py").assert_outcomes(passed=1)


def test_a_per_run_prompt_cache_key_does_not_stop_replay(project: pytest.Pytester) -> None:
    """openai-agents sends `prompt_cache_key: "agents-sdk:run:<random hex>"` on every call."""
    key = '"prompt_cache_key": "agents-sdk:run:" + uuid.uuid4().hex'
    child, parent = 'json={"prompt": "child"}', 'json={"prompt": "plan"}'
    assert child in CONFTEST
    assert parent in FLOW
    project.makeconftest(
        "import uuid\n" + CONFTEST.replace(child, f'json={{"prompt": "child", {key}}}')
    )
    project.makepyfile(
        test_flow="import uuid\n" + FLOW.replace(parent, f'json={{"prompt": "plan", {key}}}')
    )
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    run(project).assert_outcomes(passed=1)
