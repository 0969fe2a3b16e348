"""The plugin end to end under pytester: record, replay offline, mismatch, consumption, xdist.

Each inner suite starts three children concurrently through `cassette_registry`. Its conftest
registers the real upstream (`spawn`) only when CASSETTE_TEST_UPSTREAM=1, so the replay runs
prove no upstream is needed; the upstream marks its answers, so a replayed answer can only come
from the cassette.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CONFTEST = """
import os

import pytest
from cassette_provider import FunctionProvider, ProviderRegistry


async def run_child(request, child):
    text = request.prompt[0]["text"]
    return {"output": [{"type": "text", "text": "answer to " + text}], "stopReason": "completed"}


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    if os.environ.get("CASSETTE_TEST_UPSTREAM") == "1":
        registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

SUITE = """
import asyncio

from cassette_provider import SimpleAgent, StartRequest

PROMPT = "check the " + "".join({subject_parts})
CHILDREN = {children}


async def ask(registry, parent, label):
    request = StartRequest(
        prompt=[{{"type": "text", "text": PROMPT + " " + label}}], parent=parent, label=label
    )
    run = await registry.start("cassette", request)
    try:
        return await run.result
    finally:
        await run.dispose()


async def fan_out(registry):
    parent = SimpleAgent(options={{"agent": "planner"}})
    results = await asyncio.gather(*(ask(registry, parent, label) for label in CHILDREN))
    return {{label: r["output"][0]["text"] for label, r in zip(CHILDREN, results)}}


async def test_async_fan_out(cassette_registry, subagent_cassette):
    answers = await fan_out(cassette_registry)
    assert answers == {{label: "answer to " + PROMPT + " " + label for label in CHILDREN}}


def test_sync_fan_out(cassette_registry, subagent_cassette):
    answers = asyncio.run(fan_out(cassette_registry))
    assert answers == {{label: "answer to " + PROMPT + " " + label for label in CHILDREN}}
"""

ALL_CHILDREN = ("alpha", "beta", "gamma")


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    """An inner project: ini with asyncio auto mode, the conftest and the fan-out tests."""
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makeconftest(CONFTEST)
    write_suite(pytester, subject=("api",), children=ALL_CHILDREN)
    return pytester


def write_suite(
    pytester: pytest.Pytester, *, subject: tuple[str, ...], children: tuple[str, ...]
) -> None:
    """(Re)write test_flow.py; the prompt subject is joined from parts so no source shows it."""
    pytester.makepyfile(test_flow=SUITE.format(subject_parts=subject, children=children))


def run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    upstream: bool,
    subprocess: bool = False,
) -> pytest.RunResult:
    """Run the inner suite (in process unless asked), with or without the real upstream."""
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1" if upstream else "0")
    if subprocess:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def cassettes(pytester: pytest.Pytester) -> list[Path]:
    """The cassette files the inner suite owns."""
    return sorted((pytester.path / "cassettes" / "test_flow").glob("*.cassette.jsonl"))


def test_once_records_then_none_replays_without_an_upstream(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(suite, monkeypatch, "--cassette-mode=once", upstream=True).assert_outcomes(passed=2)
    assert [p.name for p in cassettes(suite)] == [
        "test_async_fan_out.cassette.jsonl",
        "test_sync_fan_out.cassette.jsonl",
    ]
    recorded = [p.read_bytes() for p in cassettes(suite)]

    run(suite, monkeypatch, upstream=False).assert_outcomes(passed=2)
    run(suite, monkeypatch, "--cassette-mode=once", upstream=False).assert_outcomes(passed=2)
    assert [p.read_bytes() for p in cassettes(suite)] == recorded  # replay never writes


def test_none_mode_without_a_cassette_names_the_missing_file(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = run(suite, monkeypatch, "-k", "async", upstream=True)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no subagent cassette at *test_async_fan_out.cassette.jsonl*"])
    assert cassettes(suite) == []


def test_a_changed_prompt_fails_naming_the_mismatch_reason_without_the_prompt(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(suite, monkeypatch, "--cassette-mode=once", upstream=True).assert_outcomes(passed=2)
    write_suite(suite, subject=("PROMPT", "CANARY"), children=ALL_CHILDREN)

    result = run(suite, monkeypatch, upstream=False)

    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*request-changed*"])
    result.stdout.fnmatch_lines(["*subagent cassette diagnostic*"])
    assert "PROMPTCANARY" not in result.stdout.str()  # DIAG-6: no prompt text in the report


def test_a_test_leaving_an_interaction_unconsumed_fails(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(suite, monkeypatch, "--cassette-mode=once", upstream=True).assert_outcomes(passed=2)
    write_suite(suite, subject=("api",), children=("alpha", "beta"))

    result = run(suite, monkeypatch, upstream=False)

    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*1 cassette interaction(s) were not consumed: root/gamma-*"])


def test_all_mode_re_records_over_an_existing_cassette(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(suite, monkeypatch, "--cassette-mode=once", upstream=True).assert_outcomes(passed=2)
    first = [cassette_id(p) for p in cassettes(suite)]
    run(suite, monkeypatch, "--cassette-mode=all", upstream=True).assert_outcomes(passed=2)
    again = [cassette_id(p) for p in cassettes(suite)]
    assert len(again) == 2
    assert set(again).isdisjoint(first)  # new headers: each file was truncated and re-recorded


def cassette_id(path: Path) -> str:
    """The cassette id in a file's header line."""
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return str(header["cassetteId"])


def test_the_suite_records_and_replays_under_xdist(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("xdist")
    recording = run(
        suite, monkeypatch, "-n", "2", "--cassette-mode=once", upstream=True, subprocess=True
    )
    recording.assert_outcomes(passed=2)
    assert len(cassettes(suite)) == 2
    replay = run(suite, monkeypatch, "-n", "2", upstream=False, subprocess=True)
    replay.assert_outcomes(passed=2)


def test_marker_path_and_unknown_options(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makepyfile(
        test_marked="""
import asyncio

import pytest
from cassette_provider import SimpleAgent
from test_flow import ask

@pytest.mark.cassette(path="elsewhere/flow.cassette.jsonl", record_mode="once")
def test_marked(cassette_registry, subagent_cassette):
    asyncio.run(ask(cassette_registry, SimpleAgent(), "alpha"))

@pytest.mark.cassette(spped=2)
def test_typo(subagent_cassette):
    pass
"""
    )
    result = run(suite, monkeypatch, "test_marked.py", upstream=True)
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*unknown option(s) spped*"])
    assert (suite.path / "elsewhere" / "flow.cassette.jsonl").is_file()
