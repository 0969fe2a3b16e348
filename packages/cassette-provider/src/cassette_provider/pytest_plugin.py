"""pytest plugin (entry point `cassette`): record modes, the `cassette` marker and the fixtures.

Loaded by every pytest run that has cassette-provider installed, so it imports only pytest and
the standard library at import time; the provider, topology and asyncio work happen lazily inside
the fixtures and hooks of tests that use them.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Generator, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, Protocol, TypeAlias

import pytest

if TYPE_CHECKING:  # the provider is imported lazily, inside the fixtures that need it
    from cassette_provider.install import CassetteHandle
    from cassette_provider.registry import ProviderRegistry
    from cassette_provider.replay import ReplayTally

RecordMode: TypeAlias = Literal["none", "once", "all"]
"""vcrpy / pytest-recording names: replay only, record when missing, re-record."""

RECORD_MODES: Final[tuple[RecordMode, ...]] = ("none", "once", "all")
DEFAULT_MODE: Final[RecordMode] = "none"
MARKER: Final = "cassette"
SUFFIX: Final = ".cassette.jsonl"
DIAGNOSTIC_SECTION: Final = "subagent cassette diagnostic"
REPLAY_SECTION: Final = "subagent cassette replay"
_COVERED_SAMPLE: Final = 5
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_PLAN_KEYS: Final = frozenset({"path", "record_mode"})


class _Handle(Protocol):
    """What the plugin needs of a `CassetteHandle`: an awaitable, memoized dispose."""

    def dispose(self) -> Awaitable[None]:
        """Unregister the provider and finish the cassette (replay: check consumption)."""
        ...


@dataclass(frozen=True, slots=True)
class CassettePlan:
    """What one test does with its cassette: record (create or truncate) or replay a file."""

    action: Literal["record", "replay"]
    path: Path
    write_mode: Literal["create", "truncate"] | None
    options: Mapping[str, object] = field(default_factory=dict)


def resolve_mode(option: str | None, ini: str | None) -> RecordMode:
    """The effective record mode: the command line wins over the ini value; default `none`."""
    for value in (option, ini):
        if value:
            return parse_mode(value)
    return DEFAULT_MODE


def parse_mode(value: object) -> RecordMode:
    """A valid record mode, or a usage error naming the accepted ones."""
    for mode in RECORD_MODES:
        if value == mode:
            return mode
    raise pytest.UsageError(
        f"cassette mode must be one of {', '.join(RECORD_MODES)}; got {value!r}"
    )


def safe_name(text: str) -> str:
    """A file-name-safe rendering: anything but letters, digits, `.`, `_` and `-` becomes `_`."""
    return _UNSAFE.sub("_", text) or "_"


def default_cassette_path(test_file: Path, nodeid: str) -> Path:
    """`<test dir>/cassettes/<module>/<test name>.cassette.jsonl` for one pytest node id.

    The test name is the node id after the module part (`TestX::test_y[p]` -> `TestX.test_y_p_`),
    so tests in classes and parametrized cases each own a distinct file.
    """
    test_part = nodeid.split("::", 1)[1] if "::" in nodeid else nodeid
    name = safe_name(test_part.replace("::", "."))
    return test_file.parent / "cassettes" / safe_name(test_file.stem) / f"{name}{SUFFIX}"


def plan_cassette(
    mode: RecordMode, path: Path, *, exists: bool, options: Mapping[str, object]
) -> CassettePlan:
    """Decide record or replay from the mode and whether the cassette exists (pure)."""
    if mode == "all":
        return CassettePlan("record", path, "truncate", options)
    if exists:
        return CassettePlan("replay", path, None, options)
    if mode == "once":
        return CassettePlan("record", path, "create", options)
    pytest.fail(
        f"no subagent cassette at {path}; record it with --cassette-mode=once",
        pytrace=False,
    )


def config_fields(factory: Callable[..., object]) -> frozenset[str]:
    """Keyword names a config class accepts, except those the plugin decides (path, write mode)."""
    return frozenset(inspect.signature(factory).parameters) - {"file", "write_mode"}


def split_options(
    options: Mapping[str, object], record_fields: frozenset[str], replay_fields: frozenset[str]
) -> tuple[dict[str, object], dict[str, object]]:
    """Marker options for RecordConfig and for ReplayConfig; an unknown key fails the test."""
    unknown = sorted(set(options) - record_fields - replay_fields)
    if unknown:
        pytest.fail(
            f"@pytest.mark.cassette got unknown option(s) {', '.join(unknown)}; "
            "use RecordConfig or ReplayConfig field names",
            pytrace=False,
        )
    record = {k: v for k, v in options.items() if k in record_fields}
    replay = {k: v for k, v in options.items() if k in replay_fields}
    return record, replay


def find_mismatch(error: BaseException) -> BaseException | None:
    """The first cassette mismatch (code CASSETTE_MISMATCH) in an exception's cause chain."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if getattr(current, "code", None) == "CASSETTE_MISMATCH":
            return current
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
    return None


def diagnostic_text(error: BaseException) -> str | None:
    """The metadata-only diagnostic of a cassette mismatch in an exception chain, as JSON."""
    mismatch = find_mismatch(error)
    as_document = getattr(getattr(mismatch, "diagnostic", None), "as_document", None)
    if not callable(as_document):
        return None
    return json.dumps(as_document(), indent=2, ensure_ascii=False)


def mismatch_report(error: BaseException) -> str | None:
    """A failure text for a test that hit a cassette mismatch: message and diagnostic only.

    It replaces pytest's traceback, whose frames print call arguments such as the live
    request, so a failure report never carries prompt text.
    """
    mismatch = find_mismatch(error)
    if mismatch is None:
        return None
    lines = [f"{type(mismatch).__name__}: {mismatch}"]
    if mismatch is not error:
        lines.insert(0, f"{type(error).__name__} caused by a subagent cassette mismatch:")
    diagnostic = diagnostic_text(mismatch)
    if diagnostic is not None:
        lines += ["", f"{DIAGNOSTIC_SECTION}:", diagnostic]
    lines += ["", "(traceback hidden: its frames can show the live request)"]
    return "\n".join(lines)


def covered_report(tally: ReplayTally | None) -> str | None:
    """A replay's covered calls as report lines (call keys only), or None when none were.

    Covered: recorded beneath a call whose recorded result replay delivered (issue 12).
    """
    if tally is None or not tally.covered:
        return None
    covered = tally.covered
    lines = [
        f"replayed {tally.consumed} interaction(s); {len(covered)} covered "
        "(recorded beneath a delivered result, not re-run, counted as consumed):"
    ]
    lines += [f"  covered {call.call_key}" for call in covered[:_COVERED_SAMPLE]]
    if len(covered) > _COVERED_SAMPLE:
        lines.append(f"  ... and {len(covered) - _COVERED_SAMPLE} more")
    return "\n".join(lines)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register `--cassette-mode` and the `cassette_mode` ini option."""
    group = parser.getgroup("cassette", "subagent cassettes")
    group.addoption(
        "--cassette-mode",
        action="store",
        dest="cassette_mode",
        choices=RECORD_MODES,
        default=None,
        help="none: replay only (default); once: record missing cassettes; all: re-record",
    )
    parser.addini("cassette_mode", "default subagent cassette record mode", default=DEFAULT_MODE)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker and check the configured mode early."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path=None, record_mode=None, **config): subagent cassette file and "
        "RecordConfig/ReplayConfig options for this test",
    )
    _configured_mode(config)


def _configured_mode(config: pytest.Config) -> RecordMode:
    """The run's record mode from the command line and ini."""
    ini = config.getini("cassette_mode")
    return resolve_mode(config.getoption("cassette_mode", None), str(ini) if ini else None)


def _plan_for(request: pytest.FixtureRequest) -> CassettePlan:
    """Plan this test's cassette from the marker, the mode and the file system."""
    marker = request.node.get_closest_marker(MARKER)
    kwargs: dict[str, object] = dict(marker.kwargs) if marker is not None else {}
    if marker is not None and marker.args:
        kwargs.setdefault("path", marker.args[0])
    test_file = Path(str(request.node.path))
    raw_path = kwargs.get("path")
    if raw_path is None:
        path = default_cassette_path(test_file, request.node.nodeid)
    elif isinstance(raw_path, str | Path):
        path = Path(raw_path)
        path = path if path.is_absolute() else test_file.parent / path
    else:
        pytest.fail("@pytest.mark.cassette path must be a string or a Path", pytrace=False)
    override = kwargs.get("record_mode")
    mode = parse_mode(override) if override is not None else _configured_mode(request.config)
    options = {k: v for k, v in kwargs.items() if k not in _PLAN_KEYS}
    _split_for_provider(options)  # unknown options fail before the mode or the file matter
    return plan_cassette(mode, path, exists=path.exists(), options=options)


def _split_for_provider(
    options: Mapping[str, object],
) -> tuple[dict[str, object], dict[str, object]]:
    """Marker options split by the provider's RecordConfig and ReplayConfig fields."""
    from cassette_provider.install import RecordConfig, ReplayConfig

    return split_options(options, config_fields(RecordConfig), config_fields(ReplayConfig))


def _install(plan: CassettePlan, registry: ProviderRegistry) -> CassetteHandle:
    """Build the RecordConfig or ReplayConfig for the plan and install it on the registry."""
    from cassette_provider.install import RecordConfig, ReplayConfig, install_cassette

    record, replay = _split_for_provider(plan.options)
    config: RecordConfig | ReplayConfig
    if plan.action == "record":
        write_mode = plan.write_mode if plan.write_mode is not None else "create"
        config = RecordConfig(file=str(plan.path), write_mode=write_mode, **record)  # type: ignore[arg-type]
    else:
        config = ReplayConfig(file=str(plan.path), **replay)  # type: ignore[arg-type]
    return install_cassette(registry, config)


@dataclass(slots=True)
class _CassetteSession:
    """One test's installed cassette, the loop it lives on, and whether it was finished."""

    plan: CassettePlan
    handle: _Handle
    loop: asyncio.AbstractEventLoop
    owns_loop: bool
    finished: bool = False
    covered: str | None = None

    def finish(self) -> BaseException | None:
        """Dispose of the handle once; return what it raised (unconsumed calls, write faults)."""
        if self.finished:
            return None
        self.finished = True
        tally: Callable[[], ReplayTally | None] | None = getattr(self.handle, "replay_tally", None)
        self.covered = covered_report(tally()) if tally is not None else None
        try:
            self.loop.run_until_complete(self.handle.dispose())
        except Exception as error:  # reported as the test's failure by the caller
            return error
        return None

    def close(self) -> None:
        """Release the private loop of a sync test."""
        if self.owns_loop and not self.loop.is_closed():
            self.loop.close()


_SESSION = pytest.StashKey[_CassetteSession]()
_LATE_FAILURE = pytest.StashKey[str]()


def _failure_message(session: _CassetteSession, error: BaseException) -> str:
    """A failure text for a cassette error: its message and diagnostic, never stored bodies."""
    lines = [f"subagent cassette {session.plan.path} ({session.plan.action}): {error}"]
    diagnostic = diagnostic_text(error)
    if diagnostic is not None:
        lines += ["", f"{DIAGNOSTIC_SECTION}:", diagnostic]
    return "\n".join(lines)


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
    from cassette_provider.registry import ProviderRegistry

    return ProviderRegistry()


@pytest.fixture
def subagent_cassette(
    request: pytest.FixtureRequest, cassette_registry: ProviderRegistry
) -> Iterator[CassetteHandle]:
    """Install this test's cassette on `cassette_registry` and yield its `CassetteHandle`.

    Works for async tests (on their loop) and sync ones (on a private loop). The handle is
    disposed right after the test body, so unconsumed interactions fail the test itself.
    """
    plan = _plan_for(request)
    if inspect.iscoroutinefunction(request.function):
        loop: asyncio.AbstractEventLoop = request.getfixturevalue("_cassette_event_loop")
        owns_loop = False
    else:
        loop = asyncio.new_event_loop()
        owns_loop = True
    try:
        handle = _install(plan, cassette_registry)
    except BaseException:
        if owns_loop:
            loop.close()
        raise
    session = _CassetteSession(plan, handle, loop, owns_loop)
    request.node.stash[_SESSION] = session
    try:
        yield handle
    finally:
        try:
            late = session.finish()  # only when the call phase never ran (setup failures)
            if late is not None:
                raise late
        finally:
            session.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, object, object]:
    """Dispose of the test's cassette inside the call phase, so its faults fail the test."""
    session = item.stash.get(_SESSION, None)
    try:
        outcome = yield
    except BaseException:
        if session is not None:
            late = session.finish()
            if late is not None:
                item.stash[_LATE_FAILURE] = _failure_message(session, late)
        raise
    if session is not None:
        failure = session.finish()
        if failure is not None:
            pytest.fail(_failure_message(session, failure), pytrace=False)
    return outcome


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Show a mismatch as its diagnostic; late cassette faults and covered calls as sections."""
    report = yield
    session = item.stash.get(_SESSION, None)
    if call.when == "call" and session is not None and session.covered is not None:
        report.sections.append((REPLAY_SECTION, session.covered))
    if call.when == "call" and call.excinfo is not None and report.failed:
        replacement = mismatch_report(call.excinfo.value)
        if replacement is not None:
            report.longrepr = replacement
        late = item.stash.get(_LATE_FAILURE, None)
        if late is not None:
            report.sections.append(("subagent cassette teardown", late))
    return report
