"""`--subagent-cassette-mode=refresh` end to end, and the drift report it prints (issue 25).

The inner suite starts the root's children one after another (so a cassette's physical order
is its start order) with the prompts in CHILDREN; the conftest registers the upstream only
when CASSETTE_TEST_UPSTREAM=1 and picks the request storage from CASSETTE_TEST_STORAGE.
"Keeping their bytes" is checked as docs/testing-with-cassettes.md defines it: the lines
before the first re-recorded one are byte-identical; later kept lines are identical but for
their chain fields (`previousHash`, `hash`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plugin.inner_project import UPSTREAM_CONFTEST

CONFTEST = (
    UPSTREAM_CONFTEST
    + """

@pytest.fixture
def subagent_cassette_config():
    return {"request_storage": os.environ.get("CASSETTE_TEST_STORAGE", "metadata")}
"""
)

SUITE = """
import os

from cassette_provider import SimpleAgent, StartRequest

CHILDREN = {children!r}


async def test_children(cassette_registry, subagent_cassette):
    parent = SimpleAgent(options={{"agent": "planner"}})
    for label, text in CHILDREN.items():
        prompt = [{{"type": "text", "text": text}}]
        request = StartRequest(prompt=prompt, parent=parent, label=label)
        run = await cassette_registry.start("cassette", request)
        try:
            assert (await run.result)["output"][0]["text"] == "live " + label
        finally:
            await run.dispose()
    assert os.environ.get("CASSETTE_TEST_FAIL") != "1", "the test fails on purpose"
"""

THREE = {"alpha": "alpha task", "beta": "beta task", "gamma": "gamma task"}
CHANGED = {"alpha": "alpha task", "beta": "beta task, reworded", "delta": "delta task"}
CASSETTE = Path("cassettes") / "test_flow" / "test_children.cassette.jsonl"


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_flow=SUITE.format(children=THREE))
    for name in ("SUBAGENT_CASSETTE_MODE", "CASSETTE_TEST_FAIL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1")
    return pytester


def run(suite: pytest.Pytester, mode: str, *args: str) -> pytest.RunResult:
    return suite.runpytest("-p", "no:cacheprovider", f"--subagent-cassette-mode={mode}", *args)


def lines_by_label(data: bytes) -> dict[str, bytes]:
    found = {}
    for line in data.splitlines(keepends=True)[1:]:
        request = json.loads(line)["request"]
        view = request["metadata"] if request["storage"] == "metadata" else request["value"]
        found[str(view["label"])] = line
    return found


def body(line: bytes) -> dict[str, object]:
    return {k: v for k, v in json.loads(line).items() if k not in {"previousHash", "hash"}}


@pytest.mark.parametrize("storage", ["metadata", "full"])
def test_refresh_re_records_the_changed_child_drops_the_gone_one_records_the_new_one(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, storage: str
) -> None:
    monkeypatch.setenv("CASSETTE_TEST_STORAGE", storage)
    run(suite, "once").assert_outcomes(passed=1)
    before = (suite.path / CASSETTE).read_bytes()
    old = lines_by_label(before)

    # Only one child's prompt changed: it alone is re-recorded, the others keep their bytes.
    suite.makepyfile(test_flow=SUITE.format(children={**THREE, "beta": CHANGED["beta"]}))
    result = run(suite, "refresh")
    result.assert_outcomes(passed=1)
    after = (suite.path / CASSETTE).read_bytes()
    new = lines_by_label(after)
    assert after.splitlines()[:2] == before.splitlines()[:2]  # header and alpha: identical
    assert new["alpha"] == old["alpha"]
    assert body(new["gamma"]) == body(old["gamma"])  # after the re-recorded beta: chain only
    assert new["beta"] != old["beta"]
    result.stdout.fnmatch_lines(["*subagent cassette drift*", "*request changed  root/beta-*"])
    assert "1 recorded, 1 live call(s)" in result.stdout.str()

    # A child no longer started is dropped, a new one recorded; the drift names all three.
    suite.makepyfile(test_flow=SUITE.format(children=CHANGED))
    result = run(suite, "refresh")
    result.assert_outcomes(passed=1)
    final = lines_by_label((suite.path / CASSETTE).read_bytes())
    assert sorted(final) == ["alpha", "beta", "delta"]
    assert final["alpha"] == old["alpha"]
    assert body(final["beta"]) == body(new["beta"])  # gamma, before it, was dropped
    text = result.stdout.str()
    assert "Drift: 2 unchanged, 1 added, 1 removed, 0 request changed" in text
    result.stdout.fnmatch_lines(["*added  root/delta-*", "*removed  root/gamma-*"])

    # The drift of the prompt change itself, as refresh reports it for each storage.
    suite.makepyfile(test_flow=SUITE.format(children={**CHANGED, "beta": "beta, once more"}))
    result = run(suite, "refresh")
    result.assert_outcomes(passed=1)
    changed = [line for line in result.stdout.lines if "request changed  root/beta-" in line]
    assert len(changed) == 1
    assert "promptBytes" in changed[0]
    if storage == "full":
        assert "paths prompt[0].text" in changed[0]
    assert "beta, once more" not in result.stdout.str()  # names members, never values


def test_a_failing_refresh_leaves_the_old_cassette_untouched(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(suite, "once").assert_outcomes(passed=1)
    folder = (suite.path / CASSETTE).parent
    before = {path.name: path.read_bytes() for path in folder.iterdir()}
    assert sorted(before) == [CASSETTE.name, f"{CASSETTE.name}.seal"]  # the cassette, its seal
    suite.makepyfile(test_flow=SUITE.format(children=CHANGED))
    monkeypatch.setenv("CASSETTE_TEST_FAIL", "1")
    run(suite, "refresh").assert_outcomes(failed=1)
    # Both untouched, nothing else left (no staging, no partial, no failed sibling).
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == before


def test_a_refresh_that_changes_nothing_keeps_the_file_byte_identical(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(suite, "once").assert_outcomes(passed=1)
    before = (suite.path / CASSETTE).read_bytes()
    result = run(suite, "refresh")
    result.assert_outcomes(passed=1)
    assert (suite.path / CASSETTE).read_bytes() == before
    result.stdout.fnmatch_lines(["*Drift: 3 unchanged, 0 added, 0 removed*"])
