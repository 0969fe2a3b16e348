"""The traps of a newcomer's first hour, each from the user's side (issue 27): pytester projects.

Each trap either works or fails with one documented line that says what to do next, in the
words the user typed (docs/troubleshooting.md lists them); no run leaves a partial file behind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.user_project import run_user_project as run

HARNESS = """
from cassette_provider import SimpleAgent, StartRequest


async def ask(registry, label, parent=None):
    parent = parent or SimpleAgent(options={"agent": "planner"})
    prompt = [{"type": "text", "text": "do " + label}]
    run = await registry.start("cassette", StartRequest(prompt=prompt, parent=parent, label=label))
    try:
        return (await run.result)["output"][0]["text"]
    finally:
        await run.dispose()
"""

CONFTEST = """
import os

import pytest
from cassette_provider import FunctionProvider, ProviderRegistry

UPSTREAM = os.environ.get("UPSTREAM_NAME", "spawn")


async def run_child(request, child):
    if os.environ.get("PLAIN_STRING") == "1":
        return "live " + request.label
    text = "live " + request.label + os.environ.get("ANSWER_SUFFIX", "")
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    registry.register(FunctionProvider(UPSTREAM, run_child))
    return registry
"""

_ENV = ("UPSTREAM_NAME", "PLAIN_STRING", "ANSWER_SUFFIX", "SUBAGENT_CASSETTE_MODE")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """A project with the harness module, the upstream's conftest and no ini."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(harness=HARNESS)
    return pytester


def recorded_labels(path: Path) -> list[str]:
    """The label part of each recorded call key (`root/<label>-<hex>~1`)."""
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    return [str(line["callKey"]).split("/")[-1].rsplit("-", 1)[0] for line in lines[1:]]


def test_a_module_marker_and_a_test_marker_merge_nearest_wins_per_key(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_merge="""
import pytest
from harness import ask

pytestmark = pytest.mark.subagent_cassette(
    "module.cassette.jsonl", request_storage="full", record_mode="once"
)


@pytest.mark.subagent_cassette("mine.cassette.jsonl")
async def test_merged(cassette_registry):
    assert await ask(cassette_registry, "alpha") == "live alpha"
"""
    )
    run(project).assert_outcomes(passed=1)
    mine = project.path / "mine.cassette.jsonl"
    assert not (project.path / "module.cassette.jsonl").exists()  # the test's path wins
    header = json.loads(mine.read_text("utf-8").splitlines()[0])
    assert header["requestStorage"] == "full"  # the module's key is kept
    assert recorded_labels(mine) == ["alpha"]  # record_mode="once" came from the module too


def test_the_subagent_cassette_marker_alone_installs_the_cassette(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_marker_only="""
import pytest
from harness import ask


@pytest.mark.subagent_cassette(record_mode="once")
async def test_marked(cassette_registry):
    assert await ask(cassette_registry, "alpha") == "live alpha"
"""
    )
    run(project).assert_outcomes(passed=1)
    cassette = project.path / "cassettes" / "test_marker_only" / "test_marked.cassette.jsonl"
    assert recorded_labels(cassette) == ["alpha"]


def test_the_older_marker_without_the_fixture_names_the_fixture(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_legacy="""
import pytest
from harness import ask


@pytest.mark.cassette(record_mode="once")
async def test_marked(cassette_registry):
    await ask(cassette_registry, "alpha")
"""
    )
    result = run(project)
    result.assert_outcomes(errors=1)  # at setup, before the harness runs
    result.stdout.fnmatch_lines(
        [
            "@pytest.mark.cassette only configures a test that requests the subagent_cassette "
            "fixture; use @pytest.mark.subagent_cassette to switch the cassette on"
        ]
    )


def test_a_harness_with_a_new_parent_per_top_level_start_is_told_how_to_pass_one_root(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_roots="""
from harness import ask


async def test_two_starts(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "alpha")  # each call makes its own SimpleAgent()
    await ask(cassette_registry, "beta")
"""
    )
    result = run(project, "--subagent-cassette-mode=once")
    result.assert_outcomes(failed=1)  # one report: FAILED, no ERROR beside it
    result.stdout.fnmatch_lines(
        [
            "*subagent cassette hint*",
            "each top-level start of this test came from a different parent object, and one "
            "cassette records one scenario under one root. Create the parent once in the test "
            "(parent = SimpleAgent(...)) and pass that same object to every top-level start: "
            "StartRequest(..., parent=parent), or build one SubagentDelegate(cassette_registry, "
            "parent) or GraphDelegate(cassette_registry, parent) and reuse it. Or give each "
            "top-level flow its own test.",
        ]
    )
    # Doing what the hint says: one parent, handed to both top-level starts, records.
    project.makepyfile(
        test_roots="""
from cassette_provider import SimpleAgent
from harness import ask


async def test_two_starts(cassette_registry, subagent_cassette):
    parent = SimpleAgent(options={"agent": "planner"})
    assert await ask(cassette_registry, "alpha", parent) == "live alpha"
    assert await ask(cassette_registry, "beta", parent) == "live beta"
"""
    )
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    run(project).assert_outcomes(passed=1)


def test_an_upstream_under_another_name_is_told_the_default_and_how_to_set_it(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UPSTREAM_NAME", "my-agents")
    project.makepyfile(
        test_upstream="""
from harness import ask


async def test_planner(cassette_registry, subagent_cassette):
    assert await ask(cassette_registry, "alpha") == "live alpha"
"""
    )
    result = run(project, "--subagent-cassette-mode=once")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            '*no upstream subagent provider registered for "spawn"',
            'hint: "spawn" is the upstream_provider this test records through (the default is '
            '"spawn"). Register your real provider under that name in cassette_registry, e.g. '
            'FunctionProvider("spawn", run_child), or name yours: '
            '@pytest.mark.subagent_cassette(upstream_provider="my-agents") (or the same key in '
            'subagent_cassette_config). Registered in cassette_registry: "my-agents".',
        ]
    )
    # Doing what the hint says records.
    project.makepyfile(
        test_upstream="""
import pytest
from harness import ask


@pytest.mark.subagent_cassette(upstream_provider="my-agents")
async def test_planner(cassette_registry):
    assert await ask(cassette_registry, "alpha") == "live alpha"
"""
    )
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)


def test_a_run_function_returning_a_plain_string_is_shown_the_result_shape(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PLAIN_STRING", "1")
    project.makepyfile(
        test_plain="""
from harness import ask


async def test_planner(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "alpha")
"""
    )
    result = run(project, "--subagent-cassette-mode=once")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            'E*RunResultShapeError: FunctionProvider "spawn": the run function returned a str; '
            "return a *"
        ]
    )
    output = result.stdout.str()
    assert "TypeError" not in output
    assert (
        'return a result such as {"output": [{"type": "text", "text": "..."}], '
        '"stopReason": "completed"}'
    ) in output
    assert "not lossless plain JSON" not in output


def test_the_redacted_replay_refusal_names_the_marker_option(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANSWER_SUFFIX", " token sk-canaryCANARY123456")
    project.makepyfile(
        test_redacted="""
from harness import ask


async def test_planner(cassette_registry, subagent_cassette):
    assert (await ask(cassette_registry, "alpha")).startswith("live alpha")
"""
    )
    run(project, "--subagent-cassette-mode=once").assert_outcomes(passed=1)
    refused = run(project)
    refused.assert_outcomes(errors=1)
    refused.stdout.fnmatch_lines(
        ["*contains a redacted result; set allow_redacted_replay only if substituted output*"]
    )
    assert "allowRedactedReplay" not in refused.stdout.str()
    project.makepyfile(
        test_redacted="""
import pytest
from harness import ask


@pytest.mark.subagent_cassette(allow_redacted_replay=True)
async def test_planner(cassette_registry):
    assert await ask(cassette_registry, "alpha") == "live alpha token [REDACTED]"
"""
    )
    run(project).assert_outcomes(passed=1)


@pytest.mark.parametrize("given", ["--record-mode", "vcr_config"])
def test_pytest_recording_options_warn_once_naming_the_option_that_applies(
    project: pytest.Pytester, given: str
) -> None:
    if given == "--record-mode":  # the option exists only with pytest-recording installed
        pytest.importorskip("pytest_recording")
    project.makepyfile(
        test_vcr="""
import pytest
from harness import ask


@pytest.fixture
def vcr_config():
    return {"record_mode": "all", "filter_headers": ["authorization"]}


async def test_one(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "alpha")


async def test_two(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "beta")
"""
        if given == "vcr_config"
        else """
from harness import ask


async def test_one(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "alpha")


async def test_two(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "beta")
"""
    )
    # A vcr_config fixture warns whether pytest-recording is loaded or not.
    args = (
        ("--record-mode=once",)
        if given == "--record-mode"
        else ("--subagent-cassette-mode=once", "-p", "no:recording")
    )
    result = run(project, *args)
    if given == "--record-mode":  # nothing recorded: both tests replay-only, and are told why
        result.assert_outcomes(errors=2)
        expected = (
            "--record-mode=once is pytest-recording's option and does not apply to subagent "
            "cassettes; use --subagent-cassette-mode=once"
        )
    else:
        result.assert_outcomes(passed=2)
        expected = (
            "vcr_config configures pytest-recording's cassettes, not subagent cassettes; put "
            "subagent cassette options in a subagent_cassette_config fixture"
        )
    output = result.stdout.str()
    assert output.count(expected) == 1  # one line, once per run
    assert "SubagentCassetteOptionWarning" in output


@pytest.mark.parametrize("where", ["marker", "environment", "ini"])
def test_a_misspelt_record_mode_names_where_it_was_set_without_a_traceback(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    marker = '@pytest.mark.subagent_cassette(record_mode="onse")' if where == "marker" else ""
    project.makepyfile(
        test_mode=f"""
import pytest
from harness import ask


{marker}
async def test_marked(cassette_registry, subagent_cassette):
    await ask(cassette_registry, "alpha")
"""
    )
    if where == "environment":
        monkeypatch.setenv("SUBAGENT_CASSETTE_MODE", "onse")
    if where == "ini":
        project.makeini("[pytest]\nsubagent_cassette_mode = onse\n")
    result = run(project)
    source = {
        "marker": "record_mode of the subagent_cassette marker or the subagent_cassette_config "
        "fixture",
        "environment": "the SUBAGENT_CASSETTE_MODE environment variable",
        "ini": "the subagent_cassette_mode (or cassette_mode) ini option",
    }[where]
    output = result.stdout.str() + result.stderr.str()
    assert (
        "subagent cassette mode must be one of none, once, new_episodes, all, rewrite, refresh; "
        f"got 'onse' from {source}"
    ) in output
    assert "Traceback" not in output
    assert "raise pytest.UsageError" not in output


def test_a_pinned_record_mode_is_named_where_the_command_line_cannot_change_it(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`record_mode` in subagent_cassette_config overrides the command line, as documented."""
    config = """

@pytest.fixture
def subagent_cassette_config():
    return {"record_mode": "PINNED"}
"""
    project.makeconftest(CONFTEST + config.replace("PINNED", "once"))
    project.makepyfile(
        test_pinned="""
from harness import ask


async def test_planner(cassette_registry, subagent_cassette):
    assert await ask(cassette_registry, "alpha") in ("live alpha", "live alpha!")
"""
    )
    run(project).assert_outcomes(passed=1)  # `once` records
    monkeypatch.setenv("ANSWER_SUFFIX", "!")
    project.makepyfile(harness=HARNESS.replace('"do " + label', '"do it " + label'))
    changed = run(project)
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        [
            'If the change is intended, record again: set record_mode="rewrite" where this '
            'test pins record_mode="once" (its subagent_cassette marker or '
            "subagent_cassette_config; a pinned mode overrides the command line), then run: "
            "pytest test_pinned.py::test_planner"
        ]
    )
    # The command line alone does not re-record it; what the message says does.
    run(project, "--subagent-cassette-mode=rewrite").assert_outcomes(failed=1)
    project.makeconftest(CONFTEST + config.replace("PINNED", "rewrite"))
    run(project, "test_pinned.py::test_planner").assert_outcomes(passed=1)
    project.makeconftest(CONFTEST + config.replace("PINNED", "none"))
    run(project).assert_outcomes(passed=1)  # the new recording replays
