"""The plugin replays a nested recording with defaults and reports its covered calls (issue 12).

The inner suite's `review` child starts its own `fact-check` child. Replay hands back
review's recorded result without re-running it, so fact-check is covered: the test passes
with the default consumption check, and its report carries a `subagent cassette replay`
section naming the covered call key (never a prompt or result). The `strict_subtrees=True`
marker option restores the reference's MATCH-4.
"""

from __future__ import annotations

import pytest

CONFTEST = """
import os

import pytest
from cassette_provider import FunctionProvider, ProviderRegistry, StartRequest


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()

    async def run_child(request, child):
        if request.label == "review":
            nested = await registry.start(
                "cassette",
                StartRequest(
                    prompt=[{"type": "text", "text": "check " + "SECRET" + "PROMPT"}],
                    parent=child,
                    label="fact-check",
                ),
            )
            try:
                await nested.result
            finally:
                await nested.dispose()
        return {"output": [{"type": "text", "text": "ok " + str(request.label)}],
                "stopReason": "completed"}

    if os.environ.get("CASSETTE_TEST_UPSTREAM") == "1":
        registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

SUITE = """
import pytest
from cassette_provider import SimpleAgent, StartRequest


async def ask(registry, label):
    request = StartRequest(
        prompt=[{{"type": "text", "text": "task " + label}}], parent=SimpleAgent(), label=label
    )
    run = await registry.start("cassette", request)
    try:
        return await run.result
    finally:
        await run.dispose()


{marker}
async def test_nested(cassette_registry, subagent_cassette):
    answer = await ask(cassette_registry, "review")
    assert answer["output"][0]["text"] == "ok review"
"""


def write(pytester: pytest.Pytester, marker: str = "") -> None:
    pytester.makepyfile(test_nested=SUITE.format(marker=marker))


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makeconftest(CONFTEST)
    write(pytester)
    return pytester


def run(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, upstream: bool
) -> pytest.RunResult:
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1" if upstream else "0")
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def test_default_replay_passes_and_reports_the_covered_call(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:  # MATCH-4, issue 12
    run(suite, monkeypatch, "--cassette-mode=once", upstream=True).assert_outcomes(passed=1)
    replay = run(suite, monkeypatch, "-rP", upstream=False)
    replay.assert_outcomes(passed=1)
    replay.stdout.fnmatch_lines(
        [
            "*subagent cassette replay*",
            "replayed 1 interaction(s); 1 covered (recorded beneath a delivered result, *",
            "  covered root/review-*~1/fact-check-*~1",
        ]
    )
    # The end-of-run summary counts the covered call (issue 14).
    replay.stdout.fnmatch_lines(
        ["subagent cassettes: 1 test(s) replayed, 0 recorded, 0 live call(s), 1 covered"]
    )
    assert "SECRETPROMPT" not in replay.stdout.str()


def test_the_strict_subtrees_marker_option_keeps_the_reference_check(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:  # MATCH-4
    run(suite, monkeypatch, "--cassette-mode=once", upstream=True).assert_outcomes(passed=1)
    write(suite, "@pytest.mark.cassette(strict_subtrees=True)")
    replay = run(suite, monkeypatch, upstream=False)
    replay.assert_outcomes(failed=1)
    replay.stdout.fnmatch_lines(
        ["*1 cassette interaction(s) were not consumed: root/review-*~1/fact-check-*~1*"]
    )
