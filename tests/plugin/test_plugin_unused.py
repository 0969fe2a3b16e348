"""Unused cassettes across xdist workers: the same report with `-n 2` and `-n 0` (issue 25).

The inner suite leaves some recordings unused: `test_one` replays only `alpha` of its
`alpha, beta` cassette; two cassette files no test installs (one beside `test_a`'s, one of
a module that no longer exists); and a shared cassette of which `test_shared_a` (module
`test_a`) replays `alpha` and `test_shared_b` (module `test_b`) replays `beta`, so it is used
in full only when both workers' records are merged.
"""

from __future__ import annotations

import shutil

import pytest
from plugin.inner_project import UPSTREAM_CONFTEST

CONFTEST = (
    UPSTREAM_CONFTEST
    + """

async def ask(registry, labels):
    parent = SimpleAgent(options={"agent": "planner"})
    for label in labels:
        prompt = [{"type": "text", "text": "do " + label}]
        request = StartRequest(prompt=prompt, parent=parent, label=label)
        run = await registry.start("cassette", request)
        try:
            await run.result
        finally:
            await run.dispose()
"""
)

TEST_A = """
import os

import pytest
from conftest import ask

SHARED = "cassettes/shared.cassette.jsonl"


@pytest.mark.subagent_cassette(assert_consumed=False)
async def test_one(cassette_registry, subagent_cassette):
    await ask(cassette_registry, os.environ.get("CASSETTE_TEST_ONE", "alpha,beta").split(","))


async def test_two(cassette_registry, subagent_cassette):
    await ask(cassette_registry, ["alpha", "beta"])


@pytest.mark.subagent_cassette(SHARED, assert_consumed=False)
async def test_shared_a(cassette_registry, subagent_cassette):
    await ask(cassette_registry, ["alpha"])
"""

TEST_B = """
import pytest
from conftest import ask


@pytest.mark.subagent_cassette("cassettes/shared.cassette.jsonl", assert_consumed=False)
async def test_shared_b(cassette_registry, subagent_cassette):
    await ask(cassette_registry, ["beta"])
"""

TITLE = "subagent cassettes unused"


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """Record test_one and test_two, then plant the shared and the orphaned cassettes."""
    pytest.importorskip("xdist")
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_a=TEST_A, test_b=TEST_B)
    monkeypatch.delenv("SUBAGENT_CASSETTE_MODE", raising=False)
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1")
    recorded = pytester.runpytest(
        "-p", "no:cacheprovider", "--subagent-cassette-mode=once", "-k", "test_one or test_two"
    )
    recorded.assert_outcomes(passed=2, deselected=2)
    folder = pytester.path / "cassettes"
    two = folder / "test_a" / "test_two.cassette.jsonl"
    shutil.copyfile(two, folder / "shared.cassette.jsonl")
    shutil.copyfile(two, folder / "test_a" / "test_removed.cassette.jsonl")
    (folder / "test_gone").mkdir()
    shutil.copyfile(two, folder / "test_gone" / "test_old.cassette.jsonl")
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "0")  # from here on, replay only
    monkeypatch.setenv("CASSETTE_TEST_ONE", "alpha")
    return pytester


def unused_section(result: pytest.RunResult) -> list[str]:
    """The lines of the unused-cassettes section, up to the next section or summary."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if TITLE in line)
    section = []
    for line in lines[start + 1 :]:
        if line.startswith(("=", "-", "subagent cassettes:")):
            break
        if line:  # a terminal may open the section with an empty line
            section.append(line)
    return section


def run(suite: pytest.Pytester, *args: str) -> pytest.RunResult:
    return suite.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_workers_and_a_single_process_report_the_same_unused_recordings(
    suite: pytest.Pytester,
) -> None:
    alone = run(suite, "-n", "0")
    alone.assert_outcomes(passed=4)
    workers = run(suite, "-n", "2")
    workers.assert_outcomes(passed=4)
    assert unused_section(workers) == unused_section(alone)
    section = unused_section(alone)
    assert section[0] == "1 unused interaction(s) in 1 cassette(s), 2 unused cassette file(s)"
    assert section[1].startswith("  cassettes/test_a/test_one.cassette.jsonl: root/beta-")
    assert section[2:] == [
        "  cassettes/test_a/test_removed.cassette.jsonl (no test used this cassette)",
        "  cassettes/test_gone/test_old.cassette.jsonl (no test used this cassette)",
        "drop unused interactions: re-record the tests that replay them with "
        "--subagent-cassette-mode=refresh (or pass assert_consumed=False where a partial "
        "replay is intended)",
        "a file whose test is gone: remove it together with its .seal (git rm <file> <file>.seal)",
    ]
    assert alone.ret == workers.ret == 0  # warn is the default


def test_fail_mode_fails_the_run_and_a_partial_run_reports_no_files(
    suite: pytest.Pytester,
) -> None:
    failed = run(suite, "-n", "2", "--subagent-cassette-unused=fail")
    failed.assert_outcomes(passed=4)
    assert failed.ret == pytest.ExitCode.TESTS_FAILED
    failed.stdout.fnmatch_lines([f"*{TITLE} (failing the run)*"])
    # -k leaves tests out: their cassettes may be used by them, so no file is reported;
    # the interactions of a cassette a selected test replayed still are.
    partial = run(suite, "-n", "0", "-k", "test_one")
    partial.assert_outcomes(passed=1, deselected=3)
    section = unused_section(partial)
    assert section[0] == "1 unused interaction(s) in 1 cassette(s), 0 unused cassette file(s)"
    assert len(section) == 3  # the cassette's line and the refresh hint: no file, no rm hint
    assert section[2].startswith("drop unused interactions: ")
