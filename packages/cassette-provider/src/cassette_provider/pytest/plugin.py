"""pytest plugin (entry point `cassette`): the hooks and fixtures of subagent cassettes.

Loaded by every pytest run that has cassette-provider installed, so at import time it loads
only pytest, the standard library and the plugin's own eager modules (`options`: names and
flags; `summary`: the run's tally; `unused`: the unused-cassette tracker). Everything else
loads inside the fixtures and hooks of tests that use a cassette: `planning` decides what a
test does with its cassette, `session` installs, finishes and commits it, `reports` and
`wording` write the messages, `model_fixture` runs `model_sessions`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from cassette_provider.pytest.naming import CASSETTE_SUFFIX, cassette_path, legacy_cassette_path
from cassette_provider.pytest.options import (
    LEGACY_MARKER,
    MARKER,
    OPTION,
    add_options,
    block_network_default,
    configured_mode,
    legacy_marker_hint,
    register_markers,
)
from cassette_provider.pytest.summary import REPORT_ATTRIBUTE, RunTotals, unused_lines
from cassette_provider.pytest.unused import UnusedCassettes

if TYPE_CHECKING:  # the provider is imported lazily, inside the fixtures that need it
    from cassette_provider.contract.registry import ProviderRegistry
    from cassette_provider.episodes import EpisodeHandle
    from cassette_provider.pytest.session import CassetteSession
    from cassette_provider.refresh import RefreshHandle

REPLAY_SECTION = "subagent cassette replay"
HINT_SECTION = "subagent cassette hint"
TEARDOWN_SECTION = "subagent cassette teardown"

_SESSION: pytest.StashKey[CassetteSession] = pytest.StashKey()
_UNUSED: pytest.StashKey[UnusedCassettes] = pytest.StashKey()
_LATE_FAILURE: pytest.StashKey[str] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the mode flag (and its alias), the network guard flag and their ini options."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, check the configured mode and guard early, set up the tally."""
    register_markers(config)
    configured_mode(config)
    block_network_default(config)
    config.pluginmanager.register(RunTotals(config), "subagent-cassette-totals")
    unused = UnusedCassettes(config, cassette_path, unused_lines)
    config.stash[_UNUSED] = unused
    config.pluginmanager.register(unused, "subagent-cassette-unused")


try:  # pytest-asyncio runs async fixtures on the test's own event loop, in strict mode too
    import pytest_asyncio

    _async_fixture: Callable[..., Any] = pytest_asyncio.fixture
except ImportError:  # pragma: no cover - without pytest-asyncio there are no async tests
    _async_fixture = pytest.fixture


@_async_fixture
async def _cassette_event_loop() -> asyncio.AbstractEventLoop:
    """The event loop an async test runs on, so the cassette is installed and disposed there."""
    return asyncio.get_running_loop()


@pytest.fixture
def cassette_registry() -> ProviderRegistry:
    """A fresh `ProviderRegistry`; override it to register real upstreams for recording."""
    from cassette_provider.contract.registry import ProviderRegistry

    return ProviderRegistry()


@pytest.fixture
def subagent_cassette_config() -> Mapping[str, object]:
    """Cassette options for every test in scope (like vcr_config); markers override per key."""
    return {}


@pytest.fixture(autouse=True)
def _subagent_cassette_marker(request: pytest.FixtureRequest) -> None:
    """`@pytest.mark.subagent_cassette` alone switches the cassette on for that test.

    The older `cassette` marker alone does not (llm-cassette owns that name); on a test that
    asks for `cassette_registry` but not the fixture it fails at setup, naming the fixture.
    """
    node = request.node
    if not isinstance(node, pytest.Function):
        return
    if node.get_closest_marker(MARKER) is not None:
        request.getfixturevalue("subagent_cassette")
        return
    names = node.fixturenames
    if (
        node.get_closest_marker(LEGACY_MARKER) is not None
        and "cassette_registry" in names
        and "subagent_cassette" not in names
    ):
        pytest.fail(legacy_marker_hint(), pytrace=False)


@pytest.fixture
def model_sessions(request: pytest.FixtureRequest) -> Iterator[Any]:
    """This test's model session logs (`<test name>.sessions/`), replayed or recorded by mode."""
    from cassette_provider.pytest.failed_recordings import record_command
    from cassette_provider.pytest.model_fixture import (
        has_logs,
        model_sessions_for,
        sessions_directory,
    )
    from cassette_provider.pytest.planning import refuse_legacy_name

    test_file = Path(str(request.node.path))
    directory = sessions_directory(cassette_path(test_file, request.node.nodeid), CASSETTE_SUFFIX)
    old = legacy_cassette_path(test_file, request.node.nodeid)
    legacy = None if old is None else sessions_directory(old, CASSETTE_SUFFIX)
    mode = configured_mode(request.config)
    if legacy is not None and not has_logs(directory) and has_logs(legacy):
        refuse_legacy_name(directory, legacy, mode, exists=False)
    again = record_command(OPTION, request.node.nodeid, "once")
    yield from model_sessions_for(request, mode, directory, again)


@pytest.fixture
def subagent_cassette(
    request: pytest.FixtureRequest, cassette_registry: ProviderRegistry
) -> Iterator[EpisodeHandle | RefreshHandle]:
    """Install this test's cassette on `cassette_registry` and yield its handle.

    Works for async tests (on their loop) and sync ones (on a private loop). The handle is
    disposed right after the test body, so unconsumed interactions fail the test itself.
    """
    from cassette_provider.pytest.async_tests import is_unclaimed_coroutine_test
    from cassette_provider.pytest.foreign_options import warn_foreign_options
    from cassette_provider.pytest.planning import plan_for
    from cassette_provider.pytest.session import open_session

    warn_foreign_options(request)
    plan, mode = plan_for(request)
    unused = request.config.stash.get(_UNUSED, None)
    session = open_session(
        request,
        cassette_registry,
        plan,
        mode,
        runs_test=is_unclaimed_coroutine_test(request.node),
        uses=None if unused is None else unused.record,
    )
    request.node.stash[_SESSION] = session
    try:
        yield session.handle
    finally:
        session.teardown()


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run a cassette test's coroutine that no async plugin claims, on the cassette's loop.

    A test that uses only `model_sessions` gets a fresh loop of its own (`asyncio.run`).
    """
    session = pyfuncitem.stash.get(_SESSION, None)
    if session is not None and not session.runs_test:
        return None
    if session is None and "model_sessions" not in pyfuncitem.fixturenames:
        return None
    from cassette_provider.pytest.async_tests import call_arguments, is_unclaimed_coroutine_test

    if session is None and not is_unclaimed_coroutine_test(pyfuncitem):
        return None
    function = pyfuncitem.obj
    test = function(**call_arguments(function, pyfuncitem.funcargs))
    if session is None:
        asyncio.run(test)
    else:
        session.loop.run_until_complete(test)
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Dispose of the test's cassette inside the call phase, so its faults fail the test."""
    session = item.stash.get(_SESSION, None)
    try:
        outcome = yield
    except BaseException as error:
        if session is not None:
            notes = session.failed_call_notes(item.nodeid, error)
            if notes is not None:
                item.stash[_LATE_FAILURE] = notes
        raise
    if session is not None:
        failure = session.passed_call_failure(item.nodeid)
        if failure is not None:
            pytest.fail(failure, pytrace=False)
    return outcome


def _no_provider_hint(item: pytest.Item, error: BaseException) -> str | None:
    """A hint when a test with only the old `cassette` marker found no cassette provider."""
    if item.get_closest_marker(LEGACY_MARKER) is None:
        return None
    from cassette_provider.contract.registry import NO_PROVIDER

    current: BaseException | None = error
    while current is not None and getattr(current, "code", None) != NO_PROVIDER:
        current = current.__cause__ or current.__context__
    if current is None:
        return None
    return legacy_marker_hint()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Show a mismatch as its lead and diagnostic; late faults and covered calls as sections."""
    report = yield
    session = item.stash.get(_SESSION, None)
    if call.when != "call":
        return report
    if session is not None:
        setattr(report, REPORT_ATTRIBUTE, session.stats())
        if session.covered is not None:
            report.sections.append((REPLAY_SECTION, session.covered))
    if call.excinfo is not None and report.failed:
        from cassette_provider.pytest.failed_recordings import record_command
        from cassette_provider.pytest.reports import mismatch_report, rerecord_line

        pinned = None if session is None else session.plan.pinned
        next_step = rerecord_line(record_command(OPTION, item.nodeid, "rewrite", pinned))
        replacement = mismatch_report(call.excinfo.value, next_step)
        if replacement is not None:
            report.longrepr = replacement
        late = item.stash.get(_LATE_FAILURE, None)
        if late is not None:
            report.sections.append((TEARDOWN_SECTION, late))
        if session is None:
            hint = _no_provider_hint(item, call.excinfo.value)
            if hint is not None:
                report.sections.append((HINT_SECTION, hint))
        else:
            from cassette_provider.pytest.wording import hints_for

            for hint in hints_for(call.excinfo.value):
                report.sections.append((HINT_SECTION, hint))
    return report
