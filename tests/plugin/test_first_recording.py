"""A newcomer's first recordings, from the user's side (issue 27): pytester projects.

A recording reaches the cassette only when its test passes and made a call; `once` records a
missing or header-only cassette; an async test needs no pytest-asyncio configuration; every
failure names the command that records; no run leaves a partial file behind.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cassette_provider import FunctionProvider, ProviderRegistry, RecordConfig, install_cassette
from support.user_project import leftovers
from support.user_project import run_user_project as run

CONFTEST = """
import os

import pytest
from cassette_provider import FunctionProvider, ProviderRegistry


async def run_child(request, child):
    text = "live " + request.label
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

FIRST_TEST = """
import os

from cassette_provider import SimpleAgent, StartRequest


async def ask(registry, label):
    parent = SimpleAgent(options={"agent": "planner"})
    prompt = [{"type": "text", "text": "do " + label}]
    request = StartRequest(prompt=prompt, parent=parent, label=label)
    run = await registry.start("cassette", request)
    try:
        return (await run.result)["output"][0]["text"]
    finally:
        await run.dispose()


async def test_planner(cassette_registry, subagent_cassette):
    assert os.environ.get("FIRST_BUG") != "before", "a bug before any child call"
    answer = await ask(cassette_registry, "check")
    assert os.environ.get("FIRST_BUG") != "after", "a bug after the child call"
    assert answer == "live check"
"""

CASSETTE = Path("cassettes") / "test_first" / "test_planner.cassette.jsonl"
RECORD = "pytest --subagent-cassette-mode=once test_first.py::test_planner"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A fresh project as the docs describe it: no ini at all, so no asyncio_mode either."""
    monkeypatch.delenv("SUBAGENT_CASSETTE_MODE", raising=False)
    monkeypatch.delenv("FIRST_BUG", raising=False)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_first=FIRST_TEST)
    return pytester


def header_only_cassette(path: Path) -> None:
    """A committed header-only cassette, as earlier versions left after a failed first run."""
    path.parent.mkdir(parents=True, exist_ok=True)

    async def record_nothing() -> None:
        registry = ProviderRegistry()
        registry.register(FunctionProvider("spawn", lambda request, child: None))
        handle = install_cassette(registry, RecordConfig(file=str(path)))
        await handle.dispose()

    asyncio.run(record_nothing())
    assert len(path.read_bytes().splitlines()) == 1


@pytest.mark.parametrize("runner", ["strict pytest-asyncio", "no async plugin"])
def test_an_async_test_records_and_replays_without_asyncio_configuration(
    project: pytest.Pytester, runner: str
) -> None:
    flags = ("-p", "no:asyncio") if runner == "no async plugin" else ()
    recording = run(project, "--subagent-cassette-mode=once", *flags)
    recording.assert_outcomes(passed=1)
    recording.stdout.fnmatch_lines(["subagent cassettes: 0 test(s) replayed, 1 recorded, 1 live*"])
    assert (project.path / CASSETTE).is_file()
    replay = run(project, *flags)
    replay.assert_outcomes(passed=1)
    replay.stdout.fnmatch_lines(["subagent cassettes: 1 test(s) replayed, 0 recorded*"])
    assert "not natively supported" not in recording.stdout.str() + replay.stdout.str()
    assert leftovers(project) == []


def test_a_first_recording_that_fails_before_any_call_leaves_nothing_and_says_how_to_record(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIRST_BUG", "before")
    failed = run(project, "--subagent-cassette-mode=once")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "*the test failed, so its recording was not committed: *"
            f"{CASSETTE.name} was not created.",
            f"Fix the test, then record again: {RECORD}",
            "*0 recorded, 0 live call(s), 0 covered, 1 recording(s) not committed*",
        ]
    )
    assert not (project.path / CASSETTE.parent).exists() or not any(
        (project.path / CASSETTE.parent).iterdir()
    )
    # After the fix, the command the message gave records the cassette.
    monkeypatch.delenv("FIRST_BUG")
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    run(project).assert_outcomes(passed=1)
    assert leftovers(project) == []


def test_a_recording_that_fails_after_its_calls_is_kept_as_failed_not_committed(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIRST_BUG", "after")
    run(project, "--subagent-cassette-mode=once").assert_outcomes(failed=1)
    cassette = project.path / CASSETTE
    assert not cassette.exists()
    failed = cassette.with_name(cassette.name + ".failed")
    assert failed.is_file()
    assert len(failed.read_bytes().splitlines()) == 2  # the header and the recorded call
    # Replay-only mode still has no cassette, and says which command records it.
    missing = run(project)
    missing.assert_outcomes(errors=1)
    missing.stdout.fnmatch_lines(
        [f"*no subagent cassette at *{CASSETTE.name}; record it with: {RECORD}"]
    )
    monkeypatch.delenv("FIRST_BUG")
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    assert cassette.is_file()
    assert not failed.exists()  # the committed recording supersedes the failed one
    assert leftovers(project) == []


def test_a_passing_recording_that_made_no_call_fails_and_commits_nothing(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_first="""
def test_planner(cassette_registry, subagent_cassette):
    pass  # the harness was never handed cassette_registry
"""
    )
    result = run(project, "--subagent-cassette-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            f"*subagent cassette *{CASSETTE.name} recorded no call, so nothing was committed: "
            'the harness never started a child through the provider "cassette". *'
            f"then record again: {RECORD}"
        ]
    )
    assert not (project.path / CASSETTE).exists()
    assert leftovers(project) == []


def test_once_re_records_a_committed_header_only_cassette_and_none_names_the_command(
    project: pytest.Pytester,
) -> None:
    cassette = project.path / CASSETTE
    header_only_cassette(cassette)
    refused = run(project)
    refused.assert_outcomes(errors=1)
    refused.stdout.fnmatch_lines(
        [
            f"*subagent cassette *{CASSETTE.name} holds no recorded call *"
            f"record it again with: {RECORD}"
        ]
    )
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    assert len(cassette.read_bytes().splitlines()) == 2
    run(project).assert_outcomes(passed=1)
    assert leftovers(project) == []


def test_a_new_episodes_run_whose_test_fails_leaves_the_cassette_unchanged(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    cassette = project.path / CASSETTE
    committed = cassette.read_bytes()
    seal = cassette.with_name(cassette.name + ".seal").read_bytes()
    one_parent = FIRST_TEST.replace(  # one root for both top-level starts
        '    parent = SimpleAgent(options={"agent": "planner"})\n',
        "    parent = PARENT\n",
    ).replace(
        "async def ask(", 'PARENT = SimpleAgent(options={"agent": "planner"})\n\n\nasync def ask('
    )
    second_call = one_parent.replace(
        'answer = await ask(cassette_registry, "check")',
        'answer = await ask(cassette_registry, "check")\n'
        '    assert await ask(cassette_registry, "new") == "live new"',
    )
    assert second_call.count("PARENT") == 2
    assert second_call.count('"new"') == 1
    project.makepyfile(test_first=second_call)
    monkeypatch.setenv("FIRST_BUG", "after")
    failed = run(project, "--subagent-cassette-mode=new_episodes")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            f"*the test failed, so its recording was not committed: *{CASSETTE.name} is unchanged.",
            "Fix the test, then record again: pytest --subagent-cassette-mode=new_episodes "
            "test_first.py::test_planner",
        ]
    )
    assert cassette.read_bytes() == committed  # the new call was not appended
    assert cassette.with_name(cassette.name + ".seal").read_bytes() == seal
    kept = cassette.with_name(cassette.name + ".failed")
    assert kept.read_bytes().startswith(committed)  # the staged copy, with the new call
    assert len(kept.read_bytes().splitlines()) == 3
    monkeypatch.delenv("FIRST_BUG")
    run(project, "--subagent-cassette-mode=new_episodes").assert_outcomes(passed=1)
    assert cassette.read_bytes().startswith(committed)
    assert len(cassette.read_bytes().splitlines()) == 3
    assert not kept.exists()
    run(project).assert_outcomes(passed=1)  # the appended call replays


def test_a_cassette_restored_without_its_seal_says_how_to_drop_the_stale_seal(
    project: pytest.Pytester,
) -> None:
    """A `git checkout` of a cassette whose `.seal` was not committed (the seal is untracked)."""
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    cassette = project.path / CASSETTE
    seal = cassette.with_name(cassette.name + ".seal")
    committed = cassette.read_bytes(), seal.read_bytes()
    appended = FIRST_TEST.replace(
        '    parent = SimpleAgent(options={"agent": "planner"})\n', "    parent = PARENT\n"
    ).replace(
        "async def ask(", 'PARENT = SimpleAgent(options={"agent": "planner"})\n\n\nasync def ask('
    )
    appended = appended.replace(
        'answer = await ask(cassette_registry, "check")',
        'answer = await ask(cassette_registry, "check")\n'
        '    assert await ask(cassette_registry, "new") == "live new"',
    )
    project.makepyfile(test_first=appended)
    run(project, "--subagent-cassette-mode=new_episodes").assert_outcomes(passed=1)
    assert seal.read_bytes() != committed[1]  # the append re-sealed the same cassette id
    # The user reverts the test and the cassette, as `git checkout .` would: the seal stays.
    project.makepyfile(test_first=FIRST_TEST)
    cassette.write_bytes(committed[0])
    refused = run(project)
    refused.assert_outcomes(errors=1)
    refused.stdout.fnmatch_lines(
        [
            "*cassette is truncated: its seal * records 2 interactions, the file holds 1 "
            "(1 missing at the end); if you restored or re-recorded this cassette on purpose "
            f"(git checkout, a merge), its seal is stale: rm {seal}*"
        ]
    )
    seal.unlink()  # the command the message gave
    run(project).assert_outcomes(passed=1)
    # Committed together, the cassette and its seal are restored together and replay as is.
    seal.write_bytes(committed[1])
    run(project).assert_outcomes(passed=1)
