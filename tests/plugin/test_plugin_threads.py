"""A sync test whose harness starts children from 32 worker threads records and replays (issue 27).

The inner project's test hands each child to a `ThreadPoolExecutor` worker that runs it with its
own `asyncio.run`, the way LangGraph's sync `invoke` or any threaded harness does. Recorded with
`once` (the real upstream registered), then replayed with `none` and no upstream at all; each
run is a subprocess with a timeout, so a deadlock fails here instead of hanging the suite.
"""

from __future__ import annotations

import pytest
from cassette_format import load_cassette, verify_file
from plugin.inner_project import UPSTREAM_CONFTEST

SUITE = """
import asyncio
from concurrent.futures import ThreadPoolExecutor

from cassette_provider import SimpleAgent, StartRequest

LABELS = [f"child-{index:02d}" for index in range(32)]
ROOT = SimpleAgent(session_id="root")


async def ask(registry, label):
    prompt = [{"type": "text", "text": "do " + label}]
    result = await registry.run("cassette", StartRequest(prompt=prompt, parent=ROOT, label=label))
    return result["output"][0]["text"]


def test_threads(cassette_registry, subagent_cassette):
    with ThreadPoolExecutor(32) as pool:
        answers = list(pool.map(lambda label: asyncio.run(ask(cassette_registry, label)), LABELS))
    assert answers == ["live " + label for label in LABELS]
"""

HANG_GUARD_S = 100.0
"""Turns a deadlocked inner run into a failure (not a timing)."""


def test_a_threaded_sync_test_records_then_replays(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(UPSTREAM_CONFTEST)
    pytester.makepyfile(test_flow=SUITE)
    monkeypatch.delenv("SUBAGENT_CASSETTE_MODE", raising=False)

    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1")
    recorded = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--subagent-cassette-mode=once", timeout=HANG_GUARD_S
    )
    recorded.assert_outcomes(passed=1)
    (cassette,) = (pytester.path / "cassettes").rglob("*.cassette.jsonl")
    assert verify_file(cassette)["interactions"] == 32
    assert sorted(i.sequence for i in load_cassette(cassette).interactions) == list(range(1, 33))

    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "0")
    replayed = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--subagent-cassette-mode=none", timeout=HANG_GUARD_S
    )
    replayed.assert_outcomes(passed=1)
