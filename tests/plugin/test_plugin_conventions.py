"""pytest-recording habits (issue 14): coexistence, config fixture and markers, the network guard,
swallowed mismatches, the closest-call lead, and hostile labels escaped as the CLI escapes them.
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
    return {"output": [{"type": "text", "text": "live"}], "stopReason": "completed"}


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    if os.environ.get("CASSETTE_TEST_UPSTREAM") == "1":
        registry.register(FunctionProvider("spawn", run_child))
    return registry
"""

HELPERS = """
import asyncio
import contextlib
import os
import socket

import pytest
from cassette_provider import SimpleAgent, StartRequest

LABEL = os.environ.get("CASSETTE_TEST_LABEL", "check")
PROMPT = os.environ.get("CASSETTE_TEST_PROMPT", "check the api")


async def ask(registry, label=None):
    parent = SimpleAgent(options={"agent": "planner"})
    prompt = [{"type": "text", "text": PROMPT}]
    run = await registry.start("cassette", StartRequest(prompt=prompt, parent=parent,
                                                        label=label or LABEL))
    try:
        return await run.result
    finally:
        await run.dispose()
"""


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makeconftest(CONFTEST)
    monkeypatch.delenv("SUBAGENT_CASSETTE_MODE", raising=False)
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "1")
    return pytester


def write(pytester: pytest.Pytester, body: str) -> None:
    pytester.makepyfile(test_flow=HELPERS + body)


def header(path: Path) -> dict[str, object]:
    return dict(json.loads(path.read_text(encoding="utf-8").splitlines()[0]))


def test_pytest_recording_loads_beside_the_plugin_with_no_option_clash(
    suite: pytest.Pytester,
) -> None:
    import pytest_recording  # in the dev group: the test must run, never skip

    assert pytest_recording
    helped = suite.runpytest("-p", "recording", "--help")
    assert helped.ret == 0
    text = helped.stdout.str()
    for option in (
        "--record-mode",
        "--block-network",
        "--subagent-cassette-mode",
        "--cassette-mode",
        "--subagent-block-network",
    ):
        assert option in text
    write(
        suite,
        """
@pytest.mark.vcr
def test_vcr_side():
    pass


async def test_cassette_side(cassette_registry, subagent_cassette):
    assert (await ask(cassette_registry))["stopReason"] == "completed"
""",
    )
    result = suite.runpytest(
        "-p",
        "recording",
        "--record-mode=none",
        "--block-network",
        "--subagent-cassette-mode=once",
    )
    result.assert_outcomes(passed=2)
    assert (suite.path / "cassettes" / "test_flow" / "test_cassette_side.cassette.jsonl").is_file()


def test_the_marker_alone_enables_the_cassette_and_settings_merge_nearest_wins(
    suite: pytest.Pytester,
) -> None:
    suite.makeconftest(
        CONFTEST
        + """

@pytest.fixture
def subagent_cassette_config():
    return {"request_storage": "full", "redact_secrets": False, "path": "from_config.jsonl"}
"""
    )
    write(
        suite,
        """
pytestmark = pytest.mark.subagent_cassette(path="module.cassette.jsonl", redact_secrets=True)


class TestPlanner:
    pytestmark = pytest.mark.subagent_cassette("class.cassette.jsonl")

    @pytest.mark.subagent_cassette(record_mode="once")
    async def test_marked_only(self, cassette_registry):
        assert (await ask(cassette_registry))["stopReason"] == "completed"


def test_config_and_module(cassette_registry):
    assert asyncio.run(ask(cassette_registry))["stopReason"] == "completed"
""",
    )
    result = suite.runpytest("--subagent-cassette-mode=once")
    result.assert_outcomes(passed=2)
    marked = header(suite.path / "class.cassette.jsonl")  # the class's path beat the module's
    module = header(suite.path / "module.cassette.jsonl")
    for document in (marked, module):
        assert document["requestStorage"] == "full"  # from the config fixture
        assert document["redactSecrets"] is True  # the module marker beat the config
    assert not (suite.path / "from_config.jsonl").exists()


def test_the_old_marker_alone_fails_with_a_hint(suite: pytest.Pytester) -> None:
    write(
        suite,
        """
@pytest.mark.cassette
async def test_old(cassette_registry):
    await ask(cassette_registry)
""",
    )
    result = suite.runpytest("--subagent-cassette-mode=once")
    result.assert_outcomes(errors=1)  # at setup, before the harness runs (issue 27)
    result.stdout.fnmatch_lines(["*use @pytest.mark.subagent_cassette to switch the cassette on"])


SWALLOWING = """
@pytest.mark.subagent_cassette
async def test_swallows(cassette_registry):
    with contextlib.suppress(Exception):
        await ask(cassette_registry)
"""


def test_a_mismatch_the_harness_swallowed_fails_the_test_with_the_lead(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(suite, SWALLOWING)
    suite.runpytest("--subagent-cassette-mode=once").assert_outcomes(passed=1)
    monkeypatch.setenv("CASSETTE_TEST_PROMPT", "check the api, now longer")
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "0")
    result = suite.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "request-changed: closest root/check-*~1 (available), promptBytes 40→52",
            "1 subagent cassette mismatch(es) were raised inside the test and swallowed*",
            "CassetteMismatchError: no cassette interaction matches parent*",
            "*subagent cassette diagnostic:*",
            "then, at the end of the test:",
            "*1 cassette interaction(s) were not consumed: root/check-*",
        ]
    )
    assert "now longer" not in result.stdout.str()  # DIAG-6: no prompt text


def test_the_network_guard_refuses_remote_hosts_during_replay_only(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        suite,
        """
@pytest.mark.subagent_cassette
async def test_reaches_out(cassette_registry):
    await ask(cassette_registry)
    if os.environ.get("CASSETTE_TEST_REACH") == "1":
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        with socket.socket() as local:
            local.connect(server.getsockname())  # loopback stays allowed
        server.close()
        with contextlib.suppress(OSError), socket.socket() as remote:
            remote.connect(("192.0.2.1", 9))  # refused before any packet is sent
""",
    )
    suite.runpytest("--subagent-cassette-mode=once").assert_outcomes(passed=1)
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "0")
    monkeypatch.setenv("CASSETTE_TEST_REACH", "1")
    result = suite.runpytest("--subagent-block-network")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*1 connection(s) refused by --subagent-block-network during replay were swallowed*"
            " the first to 192.0.2.1:9*"
        ]
    )


HOSTILE = {
    "ESC": "\x1b[31m",
    "OSC": "\x1b]0;pwned\x07",
    "BEL": "\x07",
    "C1": "\x9b",
    "NUL": "\x00",
    "RLO": "\u202e",
    "LS": "\u2028",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_labels_are_escaped_in_the_report_and_the_junit_xml(
    suite: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    hostile = HOSTILE[name]
    # Environment variables cannot hold NUL: the inner suite turns <NUL> back into it.
    monkeypatch.setenv("CASSETTE_TEST_LABEL", f"beta{hostile}x".replace("\x00", "<NUL>"))
    write(
        suite,
        """
LABEL = LABEL.replace("<NUL>", "\\x00")


@pytest.mark.subagent_cassette
async def test_labelled(cassette_registry):
    await ask(cassette_registry)
""",
    )
    suite.runpytest("--subagent-cassette-mode=once").assert_outcomes(passed=1)
    monkeypatch.setenv("CASSETTE_TEST_UPSTREAM", "0")
    monkeypatch.setenv("CASSETTE_TEST_PROMPT", "check the api, changed")
    monkeypatch.setenv("CASSETTE_TEST_LABEL", f"gamma{hostile}y".replace("\x00", "<NUL>"))
    xml = suite.path / "junit.xml"
    result = suite.runpytest(f"--junitxml={xml}")
    result.assert_outcomes(failed=1)
    output = result.stdout.str()
    escaped = "\\u{" + f"{ord(hostile[0]):04x}" + "}"
    assert escaped in output
    report = xml.read_text(encoding="utf-8")
    assert escaped in report
    for text in (output, report):
        assert not any(ch in text for ch in "\x1b\x07\x9b\x00\u202e\u2028")


def test_a_bad_cassette_at_setup_is_reported_escaped_without_a_traceback(
    suite: pytest.Pytester,
) -> None:
    """A cassette error during setup gets the same escaped report as one at the end."""
    name = "bad\x1b[31m.cassette.jsonl"
    (suite.path / name).write_bytes(b'{"kind":"not a header"}\n')
    write(
        suite,
        f"""
@pytest.mark.subagent_cassette({name!r})
async def test_labelled(cassette_registry):
    await ask(cassette_registry)
""",
    )
    result = suite.runpytest("--subagent-cassette-mode=none")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert "\x1b" not in output
    assert "bad\\u{001b}[31m.cassette.jsonl (replay)" in output
    assert "Traceback" not in output
    assert "_install(" not in output
