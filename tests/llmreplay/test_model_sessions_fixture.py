"""The `model_sessions` pytest fixture: record, replay offline, mismatch, rewrite (issue 13)."""

from __future__ import annotations

from pathlib import Path

import pytest

_INNER = """
import asyncio, json, os
import httpx

CALLS = []
ANSWER = os.environ.get("MODEL_ANSWER", "hello")
PROMPT = os.environ.get("MODEL_PROMPT", "hi")
FAIL = os.environ.get("MODEL_FAIL") == "1"

def _upstream(request):
    CALLS.append(1)
    return httpx.Response(200, json={"answer": ANSWER})

def test_model(model_sessions):
    transport = model_sessions.transport(httpx.MockTransport(_upstream))
    async def run():
        async with httpx.AsyncClient(transport=transport, base_url="http://model") as client:
            response = await client.post("/v1/chat", json={"prompt": PROMPT})
            return response.json()["answer"]
    answer = asyncio.run(run())
    print("\\nACTION", model_sessions.action, "ANSWER", answer, "LIVE", len(CALLS))
    assert not FAIL
"""

_LOGS = Path("cassettes") / "test_inner" / "test_model.sessions"


def _run(pytester: pytest.Pytester, mode: str, **env: str) -> pytest.RunResult:
    for key in ("MODEL_ANSWER", "MODEL_PROMPT", "MODEL_FAIL"):
        pytester._monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        pytester._monkeypatch.setenv(key, value)
    return pytester.runpytest_subprocess(
        "-s", "-p", "no:cacheprovider", "-p", "no:xdist", f"--subagent-cassette-mode={mode}"
    )


def _snapshot(root: Path) -> dict[str, bytes]:
    directory = root / _LOGS
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_record_then_replay_offline(pytester: pytest.Pytester) -> None:
    """once records into `<module>/<test>.sessions/`, then replays without calling upstream."""
    pytester.makepyfile(test_inner=_INNER)
    recorded = _run(pytester, "once")
    recorded.assert_outcomes(passed=1)
    assert any("ACTION record ANSWER hello LIVE 1" in line for line in recorded.outlines)
    assert _snapshot(pytester.path)
    replayed = _run(pytester, "none", MODEL_ANSWER="live-answer-not-wanted")
    replayed.assert_outcomes(passed=1)
    assert any("ACTION replay ANSWER hello LIVE 0" in line for line in replayed.outlines)


def test_replay_mismatch_fails_without_bodies(pytester: pytest.Pytester) -> None:
    """A request the logs do not hold fails the test; neither prompt appears in the output."""
    pytester.makepyfile(test_inner=_INNER)
    _run(pytester, "once", MODEL_PROMPT="secret-recorded-prompt").assert_outcomes(passed=1)
    result = _run(pytester, "none", MODEL_PROMPT="secret-live-prompt")
    assert result.ret != 0
    text = result.stdout.str() + result.stderr.str()
    assert "model replay failed" in text
    assert "differs from the recording" in text
    assert "secret-recorded-prompt" not in text
    assert "secret-live-prompt" not in text


def test_rewrite_of_a_failing_test_keeps_old_logs(pytester: pytest.Pytester) -> None:
    """rewrite replaces the logs only when the test passes; a failing run leaves them intact."""
    pytester.makepyfile(test_inner=_INNER)
    _run(pytester, "once").assert_outcomes(passed=1)
    before = _snapshot(pytester.path)
    _run(pytester, "rewrite", MODEL_ANSWER="new", MODEL_FAIL="1").assert_outcomes(failed=1)
    assert _snapshot(pytester.path) == before
    _run(pytester, "rewrite", MODEL_ANSWER="new").assert_outcomes(passed=1)
    assert _snapshot(pytester.path) != before
    replayed = _run(pytester, "none")
    assert any("ANSWER new LIVE 0" in line for line in replayed.outlines)


@pytest.mark.parametrize("mode", ["once", "all", "new_episodes"])
def test_a_failing_run_leaves_no_logs_a_later_run_replays(
    pytester: pytest.Pytester, mode: str
) -> None:
    """A failing recording writes nothing: the next `once` records afresh (issue 26)."""
    pytester.makepyfile(test_inner=_INNER)
    _run(pytester, mode, MODEL_ANSWER="from-the-failing-run", MODEL_FAIL="1").assert_outcomes(
        failed=1
    )
    assert not (pytester.path / _LOGS).exists()
    again = _run(pytester, "once", MODEL_ANSWER="fresh")
    again.assert_outcomes(passed=1)
    assert any("ACTION record ANSWER fresh LIVE 1" in line for line in again.outlines)


def test_a_failing_all_run_keeps_the_old_logs(pytester: pytest.Pytester) -> None:
    """`all` re-records; when the test fails, the logs of the last passing run stay intact."""
    pytester.makepyfile(test_inner=_INNER)
    _run(pytester, "once").assert_outcomes(passed=1)
    before = _snapshot(pytester.path)
    _run(pytester, "all", MODEL_ANSWER="new", MODEL_FAIL="1").assert_outcomes(failed=1)
    assert _snapshot(pytester.path) == before


_REGISTRY = """
import pytest
from cassette_provider import FunctionProvider, ProviderRegistry

async def run_child(request, child):
    output = [{"type": "text", "text": "child " + request.label}]
    return {"output": output, "stopReason": "completed"}

@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

_BOTH = """
import asyncio
import httpx
from cassette_provider import SimpleAgent, StartRequest

def _upstream(request):
    return httpx.Response(200, json={"answer": "hello"})

async def _child(registry):
    prompt = [{"type": "text", "text": "do it"}]
    request = StartRequest(prompt=prompt, parent=SimpleAgent(options={"agent": "p"}), label="c")
    run = await registry.start("cassette", request)
    try:
        return (await run.result)["output"][0]["text"]
    finally:
        await run.dispose()

def test_model(model_sessions, subagent_cassette, cassette_registry):
    transport = model_sessions.transport(httpx.MockTransport(_upstream))
    async def run():
        async with httpx.AsyncClient(transport=transport, base_url="http://model") as client:
            answer = (await client.post("/v1/chat", json={"prompt": "hi"})).json()["answer"]
        return answer, await _child(cassette_registry)
    print("\\nBOTH", model_sessions.action, *asyncio.run(run()))
"""


def test_composes_with_the_subagent_cassette(pytester: pytest.Pytester) -> None:
    """One test may use both fixtures: each keeps its own file beside the other."""
    pytester.makeconftest(_REGISTRY)
    pytester.makepyfile(test_inner=_BOTH)
    _run(pytester, "once").assert_outcomes(passed=1)
    replayed = _run(pytester, "none")
    replayed.assert_outcomes(passed=1)
    assert any("BOTH replay hello child c" in line for line in replayed.outlines)
    assert (pytester.path / _LOGS).is_dir()


def test_missing_httpx_names_the_extra(pytester: pytest.Pytester) -> None:
    """Without httpx the fixture fails with the ImportError naming the `httpx` extra."""
    pytester.makeconftest("import sys\nsys.modules['httpx'] = None\n")
    pytester.makepyfile(test_inner="def test_model(model_sessions):\n    pass\n")
    result = _run(pytester, "once")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*MissingExtraError*cassette-provider[[]httpx[]]*"])
