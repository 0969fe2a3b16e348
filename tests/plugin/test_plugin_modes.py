"""Every record mode on a record, a replay, a partial and an xdist run (issue 14).

The inner suite fans out to children through `cassette_registry`; its conftest registers the
real upstream only when CASSETTE_TEST_UPSTREAM=1 and the upstream answers `live <label>`, so a
replay run without it proves the answers came from the cassette. A partial run adds a child
(a call the cassette lacks) and makes the sync test fail after its calls.

Semantics checked (docs/testing-with-cassettes.md, "Record modes"):
none replays or errors; once replays or records a missing file; new_episodes replays what
matches and appends what does not (to a staged copy, moved over the cassette on a pass); all
re-records; rewrite re-records into a temporary file.
A recording reaches the cassette only when its test passes (issue 27): a failing test's
recording is kept as `<cassette>.failed` and the committed cassette stays byte-identical.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cassette_format.read.tail_seal import SEAL_SUFFIX

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
    if os.environ.get("CASSETTE_TEST_UPSTREAM") == "1":
        registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

SUITE = """
import asyncio
import os

from cassette_provider import SimpleAgent, StartRequest

CHILDREN = {children}


async def ask(registry, parent, label):
    prompt = [{{"type": "text", "text": "do " + label}}]
    request = StartRequest(prompt=prompt, parent=parent, label=label)
    run = await registry.start("cassette", request)
    try:
        return (await run.result)["output"][0]["text"]
    finally:
        await run.dispose()


async def fan_out(registry):
    parent = SimpleAgent(options={{"agent": "planner"}})
    return list(await asyncio.gather(*(ask(registry, parent, label) for label in CHILDREN)))


async def test_async_fan_out(cassette_registry, subagent_cassette):
    assert await fan_out(cassette_registry) == ["live " + label for label in CHILDREN]


def test_sync_fan_out(cassette_registry, subagent_cassette):
    assert asyncio.run(fan_out(cassette_registry)) == ["live " + label for label in CHILDREN]
    assert os.environ.get("CASSETTE_TEST_FAIL_SYNC") != "1", "the sync test fails on purpose"
"""

THREE = ("alpha", "beta", "gamma")
FOUR = ("alpha", "beta", "gamma", "delta")
MODES = ("none", "once", "new_episodes", "all", "rewrite")
RECORDING_MODES = ("once", "new_episodes", "all", "rewrite")


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """An inner project with asyncio auto mode, the conftest and the three-child suite."""
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makeconftest(CONFTEST)
    write_suite(pytester, THREE)
    monkeypatch.delenv("SUBAGENT_CASSETTE_MODE", raising=False)
    monkeypatch.delenv("CASSETTE_TEST_FAIL_SYNC", raising=False)
    return pytester


def write_suite(pytester: pytest.Pytester, children: tuple[str, ...]) -> None:
    pytester.makepyfile(test_flow=SUITE.format(children=children))


def run(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    mode: str | None,
    *args: str,
    upstream: bool,
    subprocess: bool = False,
) -> pytest.RunResult:
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1" if upstream else "0")
    flags = [f"--subagent-cassette-mode={mode}"] if mode else []
    if subprocess:
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", *flags, *args)
    return pytester.runpytest("-p", "no:cacheprovider", *flags, *args)


def cassette_dir(pytester: pytest.Pytester) -> Path:
    return pytester.path / "cassettes" / "test_flow"


def snapshot(pytester: pytest.Pytester) -> dict[str, bytes]:
    """Every file in the cassette folder (cassettes, failed recordings, any leftover file).

    Tail seals (`<cassette>.seal`) are left out here and checked by `seals`.
    """
    folder = cassette_dir(pytester)
    if not folder.is_dir():
        return {}
    return {
        path.name: path.read_bytes()
        for path in sorted(folder.iterdir())
        if path.is_file() and not path.name.endswith(SEAL_SUFFIX)
    }


def seals(pytester: pytest.Pytester) -> list[str]:
    """The tail seals in the cassette folder."""
    folder = cassette_dir(pytester)
    return sorted(path.name for path in folder.glob(f"*{SEAL_SUFFIX}"))


def labels(data: bytes) -> list[str]:
    """The recorded labels of a cassette, in sequence order."""
    lines = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    return [str(line["request"]["metadata"]["label"]) for line in lines[1:]]


def cassette_id(data: bytes) -> str:
    return str(json.loads(data.decode("utf-8").splitlines()[0])["cassetteId"])


ASYNC = "test_async_fan_out.cassette.jsonl"
SYNC = "test_sync_fan_out.cassette.jsonl"
SYNC_FAILED = SYNC + ".failed"


def seed(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """Record both cassettes with `once` and return their bytes."""
    run(suite, monkeypatch, "once", upstream=True).assert_outcomes(passed=2)
    recorded = snapshot(suite)
    assert sorted(recorded) == [ASYNC, SYNC]
    return recorded


@pytest.mark.parametrize("mode", MODES)
def test_record_run_from_no_cassettes(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    result = run(suite, monkeypatch, mode, upstream=True)
    if mode == "none":
        result.assert_outcomes(errors=2)
        result.stdout.fnmatch_lines(["*no subagent cassette at *--subagent-cassette-mode=once*"])
        assert snapshot(suite) == {}
        return
    result.assert_outcomes(passed=2)
    files = snapshot(suite)
    assert sorted(files) == [ASYNC, SYNC]  # rewrite left no temporary file behind
    assert seals(suite) == [ASYNC + SEAL_SUFFIX, SYNC + SEAL_SUFFIX]  # each sealed, no stray
    assert all(sorted(labels(data)) == sorted(THREE) for data in files.values())
    result.stdout.fnmatch_lines(
        ["subagent cassettes: 0 test(s) replayed, 2 recorded, 6 live call(s), 0 covered"]
    )


@pytest.mark.parametrize("mode", MODES)
def test_replay_run_without_an_upstream(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    recorded = seed(suite, monkeypatch)
    result = run(suite, monkeypatch, mode, upstream=False)
    if mode in {"all", "rewrite"}:
        result.assert_outcomes(errors=2)  # re-recording needs the upstream (NO_UPSTREAM)
        result.stdout.fnmatch_lines(['*no upstream subagent provider registered for "spawn"*'])
    else:
        result.assert_outcomes(passed=2)
        result.stdout.fnmatch_lines(
            ["subagent cassettes: 2 test(s) replayed, 0 recorded, 0 live call(s), 0 covered"]
        )
    assert snapshot(suite) == recorded  # nothing written, nothing lost


@pytest.mark.parametrize("mode", MODES)
def test_partial_run_a_new_call_and_a_failing_test(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    recorded = seed(suite, monkeypatch)
    write_suite(suite, FOUR)
    monkeypatch.setenv("CASSETTE_TEST_FAIL_SYNC", "1")
    result = run(suite, monkeypatch, mode, upstream=True)
    files = snapshot(suite)
    if mode in {"none", "once"}:
        assert sorted(files) == [ASYNC, SYNC]  # no temporary or partial file is left
        result.assert_outcomes(failed=2)
        result.stdout.fnmatch_lines(
            ['*added: no recording for this call under parent "root" (label "delta")*']
        )
        assert files == recorded
        return
    result.assert_outcomes(passed=1, failed=1)
    if mode == "new_episodes":
        # The passing test's new call is appended after the recorded three (id kept); the
        # failing test's cassette is byte-identical, its appended copy kept as `.failed`.
        assert sorted(files) == [ASYNC, SYNC, SYNC_FAILED]
        assert labels(files[ASYNC]) == [*labels(recorded[ASYNC]), "delta"]
        assert cassette_id(files[ASYNC]) == cassette_id(recorded[ASYNC])
        assert files[SYNC] == recorded[SYNC]
        assert labels(files[SYNC_FAILED]) == [*labels(recorded[SYNC]), "delta"]
        result.stdout.fnmatch_lines(
            [
                f"*the test failed, so its recording was not committed: *{SYNC} is unchanged.",
                "Fix the test, then record again: pytest "
                "--subagent-cassette-mode=new_episodes test_flow.py::test_sync_fan_out",
                "*1 recorded, 2 live call(s), 0 covered, 1 recording(s) not committed*",
            ]
        )
        monkeypatch.delenv("CASSETTE_TEST_FAIL_SYNC")
        run(suite, monkeypatch, mode, upstream=True).assert_outcomes(passed=2)
        files = snapshot(suite)
        assert sorted(files) == [ASYNC, SYNC]  # the committed append removed the failed copy
        assert labels(files[SYNC]) == [*labels(recorded[SYNC]), "delta"]
        assert cassette_id(files[SYNC]) == cassette_id(recorded[SYNC])
        return
    # all, rewrite: the passing test's cassette is re-recorded; the failing test's cassette
    # is byte-identical and its recording is kept beside it as one named `.failed` file.
    assert sorted(files) == [ASYNC, SYNC, SYNC_FAILED]  # no partial or temporary file
    assert sorted(labels(files[ASYNC])) == sorted(FOUR)
    assert cassette_id(files[ASYNC]) != cassette_id(recorded[ASYNC])
    assert files[SYNC] == recorded[SYNC]
    assert sorted(labels(files[SYNC_FAILED])) == sorted(FOUR)
    result.stdout.fnmatch_lines(
        [
            f"*the test failed, so its recording was not committed: *{SYNC} is unchanged.",
            f"The failed recording is kept in *{SYNC_FAILED} (cassette inspect *--tree).",
            "Fix the test, then record again: pytest "
            f"--subagent-cassette-mode={mode} test_flow.py::test_sync_fan_out",
            "*1 recorded, 8 live call(s), 0 covered, 1 recording(s) not committed*",
        ]
    )
    # A passing re-recording commits and removes the stale failed recording.
    monkeypatch.delenv("CASSETTE_TEST_FAIL_SYNC")
    run(suite, monkeypatch, mode, upstream=True).assert_outcomes(passed=2)
    assert sorted(snapshot(suite)) == [ASYNC, SYNC]


def test_rewrite_keeps_every_cassette_on_an_interrupted_and_a_deselected_run(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    recorded = seed(suite, monkeypatch)
    write_suite(suite, FOUR)
    monkeypatch.setenv("CASSETTE_TEST_FAIL_SYNC", "1")
    # -x stops at the failing sync test; -k runs only it: nothing replaced, nothing deleted.
    run(suite, monkeypatch, "rewrite", "-x", "-k", "test_sync", upstream=True).assert_outcomes(
        failed=1, deselected=1
    )
    assert snapshot(suite) == {**recorded, SYNC_FAILED: snapshot(suite)[SYNC_FAILED]}
    (cassette_dir(suite) / SYNC_FAILED).unlink()
    # A setup error (no upstream) before anything is recorded keeps them too.
    run(suite, monkeypatch, "rewrite", upstream=False).assert_outcomes(errors=2)
    assert snapshot(suite) == recorded


@pytest.mark.parametrize("mode", MODES)
def test_xdist_run(suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    pytest.importorskip("xdist")
    if mode == "none":
        recorded = seed(suite, monkeypatch)
        result = run(suite, monkeypatch, mode, "-n", "2", upstream=False, subprocess=True)
        result.assert_outcomes(passed=2)
        assert snapshot(suite) == recorded
        result.stdout.fnmatch_lines(["subagent cassettes: 2 test(s) replayed, 0 recorded*"])
        return
    result = run(suite, monkeypatch, mode, "-n", "2", upstream=True, subprocess=True)
    result.assert_outcomes(passed=2)
    files = snapshot(suite)
    assert sorted(files) == [ASYNC, SYNC]
    assert all(sorted(labels(data)) == sorted(THREE) for data in files.values())
    # The workers' tallies reach the controller's summary line.
    result.stdout.fnmatch_lines(["subagent cassettes: 0 test(s) replayed, 2 recorded, 6 live*"])


def test_environment_and_ini_choose_the_mode_and_the_flag_wins(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
        "subagent_cassette_mode = once\n"
    )
    run(suite, monkeypatch, None, upstream=True).assert_outcomes(passed=2)  # ini: once
    recorded = snapshot(suite)
    monkeypatch.setenv("SUBAGENT_CASSETTE_MODE", "all")
    run(suite, monkeypatch, None, upstream=False).assert_outcomes(errors=2)  # env: all
    # The old flag is an alias of --subagent-cassette-mode and wins over the environment.
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "0")
    suite.runpytest("-p", "no:cacheprovider", "--cassette-mode=none").assert_outcomes(passed=2)
    assert snapshot(suite) == recorded
    monkeypatch.setenv("SUBAGENT_CASSETTE_MODE", "bogus")
    result = suite.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*must be one of none, once, new_episodes, all, rewrite*"])
