"""pytest plugin (entry point `cassette`): record modes, the markers, the fixtures, the summary.

Loaded by every pytest run that has cassette-provider installed, so it imports only pytest and
the standard library at import time; the provider, topology and asyncio work happen lazily inside
the fixtures and hooks of tests that use them.

Names are chosen to coexist with pytest-recording, vcrpy, cassetter and llm-cassette in one
environment: `--subagent-cassette-mode` (alias `--cassette-mode`), ini `subagent_cassette_mode`
(alias `cassette_mode`), env `SUBAGENT_CASSETTE_MODE`, `--subagent-block-network`, the
`subagent_cassette` marker and the `subagent_cassette_config` fixture. The older `cassette`
marker still configures a test that requests the fixture, but never switches a cassette on by
itself: llm-cassette owns that marker name.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import secrets
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeAlias

import pytest

from cassette_provider.pytest.naming import (
    CASSETTE_SUFFIX,
    cassette_path,
    legacy_cassette_path,
    rename_instruction,
    safe_slug,
)
from cassette_provider.pytest.unused import (
    UNUSED_INI,
    UNUSED_MODES,
    UNUSED_OPTION,
    UnusedCassettes,
    UnusedReport,
    UseRecord,
)

if TYPE_CHECKING:  # the provider is imported lazily, inside the fixtures that need it
    from cassette_format.records.cassette_file import CassetteFile
    from cassette_topology.drift import DriftReport

    from cassette_provider.contract.registry import ProviderRegistry
    from cassette_provider.episodes import EpisodeHandle
    from cassette_provider.pytest.network_guard import NetworkGuard
    from cassette_provider.refresh import RefreshHandle
    from cassette_provider.replay.replayer import ReplayTally

RecordMode: TypeAlias = Literal["none", "once", "new_episodes", "all", "rewrite", "refresh"]
"""vcrpy / pytest-recording names, with subagent-cassette semantics (see `plan_cassette`)."""

RECORD_MODES: Final[tuple[RecordMode, ...]] = (
    "none",
    "once",
    "new_episodes",
    "all",
    "rewrite",
    "refresh",
)
DEFAULT_MODE: Final[RecordMode] = "none"
MARKER: Final = "subagent_cassette"
LEGACY_MARKER: Final = "cassette"
OPTION: Final = "--subagent-cassette-mode"
OPTION_ALIAS: Final = "--cassette-mode"
INI: Final = "subagent_cassette_mode"
INI_ALIAS: Final = "cassette_mode"
ENV: Final = "SUBAGENT_CASSETTE_MODE"
BLOCK_OPTION: Final = "--subagent-block-network"
BLOCK_INI: Final = "subagent_block_network"
SUFFIX: Final = CASSETTE_SUFFIX
DIAGNOSTIC_SECTION: Final = "subagent cassette diagnostic"
REPLAY_SECTION: Final = "subagent cassette replay"
HINT_SECTION: Final = "subagent cassette hint"
REPORT_ATTRIBUTE: Final = "subagent_cassette"
_PLAN_KEYS: Final = frozenset({"path", "record_mode", "block_network"})

Action: TypeAlias = Literal["record", "replay", "new_episodes", "refresh"]
NOT_COMMITTED: Final = "record-not-committed"
"""The summary's name for a recording that did not become the cassette (its test failed)."""


@dataclass(frozen=True, slots=True)
class CassettePlan:
    """What one test does with its cassette: record, replay, or replay and append.

    `rewrite` records into a temporary file that replaces the cassette only if the test passes.
    """

    action: Action
    path: Path
    write_mode: Literal["create", "truncate", "append"] | None
    options: Mapping[str, object] = field(default_factory=dict)
    rewrite: bool = False


def resolve_mode(option: str | None, ini: str | None, env: str | None = None) -> RecordMode:
    """The effective record mode: command line, then environment, then ini; default `none`."""
    for value in (option, env, ini):
        if value:
            return parse_mode(value)
    return DEFAULT_MODE


def parse_mode(value: object) -> RecordMode:
    """A valid record mode, or a usage error naming the accepted ones."""
    for mode in RECORD_MODES:
        if value == mode:
            return mode
    raise pytest.UsageError(
        f"subagent cassette mode must be one of {', '.join(RECORD_MODES)}; got {value!r}"
    )


def safe_name(text: str) -> str:
    """A file-name-safe, injective, bounded name for one id (see `naming.safe_slug`)."""
    return safe_slug(text)


def default_cassette_path(test_file: Path, nodeid: str) -> Path:
    """`<test dir>/cassettes/<module>/<test name>.cassette.jsonl` for one pytest node id.

    The test name is the node id after the module part (`test_y` stays `test_y`;
    `TestX::test_y[p]` -> `TestX.test_y_p_~<digest>`): every node id owns its own file, whose
    name and siblings fit the file-name limit (`naming`).
    """
    return cassette_path(test_file, nodeid)


def _refuse_legacy_name(new: Path, old: Path | None, mode: RecordMode, *, exists: bool) -> None:
    """Fail a reading mode whose cassette still carries its 0.2 name (a rename, never a guess)."""
    if exists or old is None or old == new or mode in {"all", "rewrite"} or not old.exists():
        return
    from cassette_canonical.display_text import display

    pytest.fail(display(rename_instruction(old, new, OPTION)), pytrace=False)


def plan_cassette(
    mode: RecordMode,
    path: Path,
    *,
    exists: bool,
    options: Mapping[str, object],
    empty: bool = False,
    nodeid: str = "",
) -> CassettePlan:
    """Decide the test's cassette action from the mode and the cassette on disk (pure).

    none: replay; a missing or header-only (`empty`) file fails, naming the command that
    records it. once: replay, or record a missing or header-only file. new_episodes: replay
    what matches and append what does not (one provider), or record. all: re-record now
    (truncate). rewrite: re-record into a temporary file. refresh: replay what matches,
    record what does not, drop what nothing used; the new cassette replaces the old one only
    on a pass (or record a missing file). A recording reaches the cassette only when its
    test passes (failed_recordings).
    """
    from cassette_provider.pytest.failed_recordings import (
        empty_cassette_message,
        missing_cassette_message,
        record_command,
    )

    if mode == "refresh":
        action: Action = "refresh" if exists else "record"
        return CassettePlan(action, path, "append" if exists else "create", options)
    if mode == "all":
        return CassettePlan("record", path, "truncate", options)
    if mode == "rewrite":
        return CassettePlan("record", path, "create", options, rewrite=True)
    if exists and mode == "new_episodes":
        return CassettePlan("new_episodes", path, "append", options)
    if exists and not empty:
        return CassettePlan("replay", path, None, options)
    if mode in {"once", "new_episodes"}:
        return CassettePlan("record", path, "truncate" if exists else "create", options)
    command = record_command(OPTION, nodeid or "<test node id>", "once")
    message = empty_cassette_message if exists else missing_cassette_message
    pytest.fail(message(path, command), pytrace=False)


def merge_settings(
    base: Mapping[str, object], layers: Iterable[tuple[tuple[object, ...], Mapping[str, object]]]
) -> dict[str, object]:
    """Config fixture, then marker layers from farthest to nearest: nearest wins per key.

    Each layer is a marker's (args, kwargs); a first positional argument is the `path`.
    """
    merged = dict(base)
    for args, kwargs in layers:
        if args:
            merged["path"] = args[0]
        merged.update(kwargs)
    return merged


def config_fields(factory: Callable[..., object]) -> frozenset[str]:
    """Keyword names a config class accepts, except those the plugin decides (path, write mode)."""
    return frozenset(inspect.signature(factory).parameters) - {"file", "write_mode"}


def split_options(
    options: Mapping[str, object], record_fields: frozenset[str], replay_fields: frozenset[str]
) -> tuple[dict[str, object], dict[str, object]]:
    """Options for RecordConfig and for ReplayConfig; an unknown key fails the test."""
    unknown = sorted(set(options) - record_fields - replay_fields)
    if unknown:
        pytest.fail(
            f"subagent cassette config got unknown option(s) {', '.join(unknown)}; "
            "use RecordConfig or ReplayConfig field names, path, record_mode or block_network",
            pytrace=False,
        )
    record = {k: v for k, v in options.items() if k in record_fields}
    replay = {k: v for k, v in options.items() if k in replay_fields}
    return record, replay


def find_mismatch(error: BaseException) -> BaseException | None:
    """The first cassette mismatch (code CASSETTE_MISMATCH) in an exception's cause chain."""
    from cassette_provider.pytest.reports import find_mismatch as find

    return find(error)


def diagnostic_text(error: BaseException) -> str | None:
    """The metadata-only diagnostic of a cassette mismatch in an exception chain, as JSON."""
    from cassette_provider.pytest.reports import diagnostic_text as text

    return text(error)


def mismatch_report(error: BaseException, next_step: str | None = None) -> str | None:
    """A failure text for a test that hit a cassette mismatch: lead, message and diagnostic."""
    from cassette_provider.pytest.reports import mismatch_report as report

    return report(error, next_step)


def unused_lines(report: UnusedReport, root: Path) -> list[str]:
    """The unused-cassettes summary lines (counts, call keys, files), escaped."""
    from cassette_provider.pytest.reports import unused_lines as lines

    return lines(report, root)


def covered_report(tally: ReplayTally | None) -> str | None:
    """A replay's covered calls as report lines (call keys only), or None when none were."""
    from cassette_provider.pytest.reports import covered_report as report

    return report(tally)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Register the mode flag (and its alias), the network guard flag and their ini options."""
    group = parser.getgroup("subagent-cassette", "subagent cassettes")
    group.addoption(
        OPTION,
        OPTION_ALIAS,
        action="store",
        dest="subagent_cassette_mode",
        choices=RECORD_MODES,
        default=None,
        help=(
            "none: replay only (default); once: record missing cassettes; new_episodes: "
            "replay matches and append new calls; all: re-record; rewrite: re-record and "
            "replace only when the test passes; refresh: replay matches, re-record only what "
            "changed, drop what is unused, replace only when the test passes. "
            f"Overrides ${ENV} and the {INI} ini option."
        ),
    )
    group.addoption(
        BLOCK_OPTION,
        action="store_true",
        dest="subagent_block_network",
        default=False,
        help="refuse non-loopback connections while a subagent cassette replays",
    )
    parser.addini(INI, "default subagent cassette record mode", default=None)
    parser.addini(INI_ALIAS, f"alias of {INI}", default=None)
    parser.addini(BLOCK_INI, "block the network during replay", type="bool", default=False)
    group.addoption(
        UNUSED_OPTION,
        action="store",
        dest="subagent_cassette_unused",
        choices=UNUSED_MODES,
        default=None,
        help=(
            "at the end of the run, report recorded interactions and cassette files under "
            "each test directory's cassettes/ that no test used (xdist workers included): "
            f"warn (default) or fail. Overrides the {UNUSED_INI} ini option."
        ),
    )
    parser.addini(UNUSED_INI, "warn or fail on unused cassettes (default warn)", default=None)


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, check the configured mode early and set up the run's tally."""
    config.addinivalue_line(
        "markers",
        f"{MARKER}(path=None, record_mode=None, block_network=None, **config): use a subagent "
        "cassette in this test (no fixture needed) with these RecordConfig/ReplayConfig options",
    )
    config.addinivalue_line(
        "markers",
        f"{LEGACY_MARKER}(path=None, **config): older name of {MARKER}'s options; applies "
        "only when the test requests the subagent_cassette fixture",
    )
    _configured_mode(config)
    config.pluginmanager.register(_RunTotals(config), "subagent-cassette-totals")
    unused = UnusedCassettes(config, default_cassette_path, unused_lines)
    config.stash[_UNUSED] = unused
    config.pluginmanager.register(unused, "subagent-cassette-unused")


def _configured_mode(config: pytest.Config) -> RecordMode:
    """The run's record mode from the command line, the environment and the ini file."""
    ini = config.getini(INI) or config.getini(INI_ALIAS)
    return resolve_mode(
        config.getoption("subagent_cassette_mode", None),
        str(ini) if ini else None,
        os.environ.get(ENV) or None,
    )


def _markers(node: pytest.Item) -> list[tuple[tuple[object, ...], Mapping[str, object]]]:
    """Marker layers of both names, farthest (module) to nearest (the test itself)."""
    closest_first = [mark for mark in node.iter_markers() if mark.name in {MARKER, LEGACY_MARKER}]
    return [(tuple(mark.args), mark.kwargs) for mark in reversed(closest_first)]


def _settings_for(request: pytest.FixtureRequest) -> dict[str, object]:
    base = request.getfixturevalue("subagent_cassette_config")
    if not isinstance(base, Mapping):
        pytest.fail("subagent_cassette_config must return a mapping", pytrace=False)
    return merge_settings(base, _markers(request.node))


def _plan_for(request: pytest.FixtureRequest) -> tuple[CassettePlan, RecordMode]:
    """Plan this test's cassette from the config, the markers, the mode and the file system."""
    settings = _settings_for(request)
    test_file = Path(str(request.node.path))
    raw_path = settings.get("path")
    override = settings.get("record_mode")
    mode = parse_mode(override) if override is not None else _configured_mode(request.config)
    if raw_path is None:
        path = default_cassette_path(test_file, request.node.nodeid)
        legacy = legacy_cassette_path(test_file, request.node.nodeid)
        _refuse_legacy_name(path, legacy, mode, exists=path.exists())
    elif isinstance(raw_path, str | Path):
        path = Path(raw_path)
        path = path if path.is_absolute() else test_file.parent / path
    else:
        pytest.fail("subagent cassette path must be a string or a Path", pytrace=False)
    options = {k: v for k, v in settings.items() if k not in _PLAN_KEYS}
    _split_for_provider(options)  # unknown options fail before the mode or the file matter
    block = settings.get("block_network")
    if block is None:
        block = bool(request.config.getoption("subagent_block_network", False)) or bool(
            request.config.getini(BLOCK_INI)
        )
    if not isinstance(block, bool):
        pytest.fail("subagent cassette block_network must be a boolean", pytrace=False)
    from cassette_provider.pytest.failed_recordings import holds_no_call

    exists = path.exists()
    plan = plan_cassette(
        mode,
        path,
        exists=exists,
        options=options,
        empty=exists and holds_no_call(path),
        nodeid=request.node.nodeid,
    )
    planned = CassettePlan(
        plan.action,
        plan.path,
        plan.write_mode,
        {**plan.options, "block_network": block},
        rewrite=plan.rewrite,
    )
    return planned, mode


def _split_for_provider(
    options: Mapping[str, object],
) -> tuple[dict[str, object], dict[str, object]]:
    """Options split by the provider's RecordConfig and ReplayConfig fields."""
    from cassette_provider.install import RecordConfig, ReplayConfig

    return split_options(options, config_fields(RecordConfig), config_fields(ReplayConfig))


def rewrite_target(path: Path) -> Path:
    """The temporary sibling a `rewrite` recording writes before it may replace `path`."""
    return path.with_name(f"{path.name}.rewrite-{os.getpid()}-{secrets.token_hex(4)}")


def _install(
    plan: CassettePlan, registry: ProviderRegistry, target: Path
) -> EpisodeHandle | RefreshHandle:
    """Build the configs for the plan and install them behind one episode provider."""
    from cassette_provider.episodes import install_episodes
    from cassette_provider.install import RecordConfig, ReplayConfig

    options = {k: v for k, v in plan.options.items() if k not in _PLAN_KEYS}
    record, replay = _split_for_provider(options)
    if plan.action == "refresh":
        from cassette_provider.refresh import install_refresh

        return install_refresh(
            registry,
            RecordConfig(file=str(plan.path), **record),  # type: ignore[arg-type]
            ReplayConfig(file=str(plan.path), **replay),  # type: ignore[arg-type]
            commit_on_dispose=False,  # `settle` commits once the test passed
        )
    if plan.action == "replay":
        return install_episodes(registry, replay=ReplayConfig(file=str(plan.path), **replay))  # type: ignore[arg-type]
    write_mode = plan.write_mode if plan.write_mode is not None else "create"
    record_config = RecordConfig(file=str(target), write_mode=write_mode, **record)  # type: ignore[arg-type]
    if plan.action == "record":
        return install_episodes(registry, record=record_config)
    replay["assert_consumed"] = False  # new_episodes keeps what the test no longer calls
    replay_config = ReplayConfig(file=str(plan.path), **replay)  # type: ignore[arg-type]
    if registry.get(record_config.upstream_provider) is None:
        # Nothing to record with: replay alone, and a new call fails as a mismatch.
        return install_episodes(registry, replay=replay_config)
    return install_episodes(registry, replay=replay_config, record=record_config)


@dataclass(slots=True)
class _CassetteSession:
    """One test's installed cassette, its loop, its guard, and how it was finished."""

    plan: CassettePlan
    handle: EpisodeHandle | RefreshHandle
    loop: asyncio.AbstractEventLoop
    owns_loop: bool
    target: Path
    existed: bool = False
    record_again: RecordMode = "once"
    runs_test: bool = False
    guard: NetworkGuard | None = None
    finished: bool = False
    covered: str | None = None
    covered_count: int = 0
    settled: bool = False
    before: CassetteFile | None = None
    drift: list[str] | None = None
    uses: UseRecord | None = None
    committed: bool = False
    no_call: bool = False
    kept: Path | None = None

    def finish(self, *, passed: bool, interrupted: bool = False) -> BaseException | None:
        """Dispose of the handle once; return what it raised (unconsumed calls, write faults).

        A recording is committed only when its test passed and it recorded a call; otherwise
        it is closed as interrupted (the cassette stays as it was) and kept as
        `<cassette>.failed`, or removed when it holds no call (failed_recordings).
        `interrupted` (Ctrl-C, a crash of the run) keeps a truncated cassette as it was too.
        """
        if self.finished:
            return None
        self.finished = True
        tally = self.handle.replay_tally()
        self.covered = covered_report(tally)
        self.covered_count = 0 if tally is None else len(tally.covered)
        recording = self.plan.action == "record"
        recorded = self.handle.provider.counts().recorded
        self.no_call = recording and passed and recorded == 0
        hold = recording and (not passed or recorded == 0)
        try:
            self.loop.run_until_complete(self.handle.dispose(interrupted=interrupted or hold))
        except Exception as error:  # reported as the test's failure by the caller
            return error
        finally:
            self._record_use()
            if hold:
                self.kept = self._keep_failed(recorded)
        if recording and not hold:
            self.committed = True
            from cassette_provider.pytest.failed_recordings import discard_stale_failed

            discard_stale_failed(self.plan.path)
        return None

    def _keep_failed(self, recorded: int) -> Path | None:
        from cassette_provider.pytest.failed_recordings import keep_failed

        return keep_failed(self.target, self.plan.path, recorded=recorded)

    def not_committed_note(self, nodeid: str) -> str | None:
        """What a failed recording left and the command that records again (None otherwise)."""
        if self.plan.action != "record" or self.committed:
            return None
        from cassette_provider.pytest.failed_recordings import not_committed_note, record_command

        command = record_command(OPTION, nodeid, self.record_again)
        return not_committed_note(self.plan.path, self.kept, existed=self.existed, command=command)

    def no_call_failure(self, nodeid: str) -> str | None:
        """The failure of a passing recording test that started no child (None otherwise)."""
        if not self.no_call:
            return None
        from cassette_provider.pytest.failed_recordings import no_call_message, record_command

        provider = str(self.plan.options.get("provider", "cassette"))
        command = record_command(OPTION, nodeid, self.record_again)
        return no_call_message(self.plan.path, provider, command)

    def _record_use(self) -> None:
        """Tell the run which recorded calls this test used (unused cassettes, issue 25)."""
        if self.uses is None:
            return
        use = self.handle.replay_use()
        self.uses.used(
            os.path.abspath(self.plan.path),
            () if use is None else use.keys,
            () if use is None else use.used,
            recorded=self.plan.action in {"record", "refresh"},
        )

    def settle(self, *, passed: bool) -> BaseException | None:
        """`rewrite` and `refresh`: replace the cassette on a pass, else discard the new one.

        Returns what a refresh commit raised (the test then fails). Afterwards the drift
        of a re-recorded cassette against the one it replaced is kept for the summary.
        """
        if self.settled:
            return None
        self.settled = True
        handle = self.handle
        from cassette_provider.refresh import RefreshHandle

        if isinstance(handle, RefreshHandle):
            if not passed:
                handle.discard()
                return None
            try:
                self.loop.run_until_complete(handle.commit())
            except Exception as error:  # reported as the test's failure by the caller
                return error
            self.drift = None if handle.drift is None else drift_lines_for(handle.drift)
            return None
        if self.plan.rewrite:
            from cassette_format.write.tail_seal import discard_sealed, replace_sealed

            if passed and self.committed and self.target.is_file():
                replace_sealed(self.target, self.plan.path)  # its seal too; the old mode is kept
            else:
                discard_sealed(self.target)  # the committed cassette stays as it was
                return None
        if self.before is not None and self.plan.action == "record" and self.committed:
            self.drift = drift_against(self.before, self.plan.path)
        return None

    def stats(self) -> dict[str, object]:
        """What the end-of-run summary needs from this test (plain data, xdist-serializable)."""
        counts = self.handle.provider.counts()
        action = self.plan.action
        stats: dict[str, object] = {
            "action": NOT_COMMITTED if action == "record" and not self.committed else action,
            "replayed": counts.replayed,
            "recorded": counts.recorded,
            "covered": self.covered_count,
        }
        if self.drift is not None:
            stats["drift"] = {"path": str(self.plan.path), "lines": self.drift}
        return stats

    def close(self) -> None:
        """Release the guard and the private loop of a sync test."""
        if self.guard is not None:
            self.guard.remove()
        if self.owns_loop and not self.loop.is_closed():
            self.loop.close()


_SESSION = pytest.StashKey[_CassetteSession]()
_UNUSED = pytest.StashKey[UnusedCassettes]()
_LATE_FAILURE = pytest.StashKey[str]()
_FOREIGN_CHECKED = pytest.StashKey[bool]()


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
        pytest.fail(_legacy_marker_hint(), pytrace=False)


@pytest.fixture
def model_sessions(request: pytest.FixtureRequest) -> Iterator[Any]:
    """This test's model session logs (`<test name>.sessions/`), replayed or recorded by mode."""
    from cassette_provider.pytest.failed_recordings import record_command
    from cassette_provider.pytest.model_fixture import (
        has_logs,
        model_sessions_for,
        sessions_directory,
    )

    test_file = Path(str(request.node.path))
    directory = sessions_directory(default_cassette_path(test_file, request.node.nodeid), SUFFIX)
    old = legacy_cassette_path(test_file, request.node.nodeid)
    legacy = None if old is None else sessions_directory(old, SUFFIX)
    mode = _configured_mode(request.config)
    if legacy is not None and not has_logs(directory) and has_logs(legacy):
        _refuse_legacy_name(directory, legacy, mode, exists=False)
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

    _warn_foreign_options(request)
    plan, mode = _plan_for(request)
    runs_test = is_unclaimed_coroutine_test(request.node)
    if inspect.iscoroutinefunction(request.function) and not runs_test:
        loop: asyncio.AbstractEventLoop = request.getfixturevalue("_cassette_event_loop")
        owns_loop = False
    else:  # a sync test, or a coroutine test no async plugin claims (run here, on this loop)
        loop = asyncio.new_event_loop()
        owns_loop = True
    target = rewrite_target(plan.path) if plan.rewrite else plan.path
    existed = plan.path.exists()
    # What records this test again after a failed recording: a re-recording mode re-records
    # an existing cassette; `once` records a missing (or header-only) one.
    again: RecordMode = mode if existed and mode in {"all", "rewrite"} else "once"
    from cassette_format.errors import CassetteError

    refusal: str | None = None
    try:
        handle = _install(plan, cassette_registry, target)
    except CassetteError as error:  # a bad cassette or config: escaped text, no traceback
        refusal = _setup_refusal(plan, cassette_registry, error)
    except BaseException:
        if owns_loop:
            loop.close()
        raise
    if refusal is not None:  # failed outside the handler: one message, no chained traceback
        if owns_loop:
            loop.close()
        pytest.fail(refusal, pytrace=False)
    session = _CassetteSession(
        plan, handle, loop, owns_loop, target, existed, again, runs_test=runs_test
    )
    unused = request.config.stash.get(_UNUSED, None)
    session.uses = None if unused is None else unused.record
    if plan.action == "record" and plan.path.is_file():  # all, rewrite: drift against it
        session.before = _loaded_or_none(plan.path)
    if plan.action == "replay" and plan.options.get("block_network") is True:
        from cassette_provider.pytest.network_guard import NetworkGuard

        session.guard = NetworkGuard(f"{BLOCK_OPTION} or block_network=True")
        session.guard.install()
    request.node.stash[_SESSION] = session
    from cassette_topology.errors import CASSETTE_MISMATCH

    try:
        yield handle
    finally:
        try:
            late = session.finish(passed=False)  # only when the call phase never ran
            session.settle(passed=False)
            # The body never ran (a setup error is the report): unconsumed calls are expected.
            if late is not None and getattr(late, "code", None) != CASSETTE_MISMATCH:
                raise late
        finally:
            session.close()


def _loaded_or_none(path: Path) -> CassetteFile | None:
    """The cassette a re-recording replaces, for its drift report; None if it is unreadable."""
    from cassette_format.read.parse import load_cassette

    try:
        return load_cassette(path)
    except Exception:  # a broken old cassette is being re-recorded: no drift to show
        return None


def drift_lines_for(report: DriftReport) -> list[str]:
    """The drift report as escaped lines (counts, then one line per changed call)."""
    from cassette_topology.drift_terms import drift_lines

    return drift_lines(report)


def drift_against(before: CassetteFile, path: Path) -> list[str] | None:
    """The drift of the cassette now at `path` against the one it replaced, as lines."""
    from cassette_topology.drift import drift_report

    after = _loaded_or_none(path)
    if after is None:
        return None
    return drift_lines_for(drift_report(before.interactions, after.interactions))


def _setup_refusal(plan: CassettePlan, registry: ProviderRegistry, error: BaseException) -> str:
    """The setup failure of a cassette that cannot be installed, with the next step."""
    from cassette_provider.pytest.reports import failure_message
    from cassette_provider.pytest.wording import hints_for

    upstream = str(plan.options.get("upstream_provider", "spawn"))
    hints = hints_for(error, registered=registry.names(), upstream=upstream)
    return failure_message(str(plan.path), plan.action, error, hints)


def _warn_foreign_options(request: pytest.FixtureRequest) -> None:
    """Once per run: pytest-recording's `--record-mode`/`vcr_config` do not reach this plugin."""
    config = request.config
    if config.stash.get(_FOREIGN_CHECKED, False):
        return
    config.stash[_FOREIGN_CHECKED] = True
    import warnings

    from cassette_provider.pytest.foreign_options import (
        SubagentCassetteOptionWarning,
        record_mode_warning,
        vcr_config_warning,
    )

    given = bool(
        config.getoption("subagent_cassette_mode", None)
        or os.environ.get(ENV)
        or config.getini(INI)
        or config.getini(INI_ALIAS)
    )
    try:
        vcr_config = request.getfixturevalue("vcr_config")
    except pytest.FixtureLookupError:
        vcr_config = None
    ours = request.getfixturevalue("subagent_cassette_config")
    messages = (
        record_mode_warning(config.getoption("record_mode", None), given, OPTION),
        vcr_config_warning(vcr_config, ours if isinstance(ours, Mapping) else {}),
    )
    for message in messages:
        if message is not None:
            warnings.warn(SubagentCassetteOptionWarning(message), stacklevel=2)


def _failure_message(session: _CassetteSession, error: BaseException) -> str:
    from cassette_provider.pytest.reports import failure_message

    return failure_message(str(session.plan.path), session.plan.action, error)


def _outcome_failure(session: _CassetteSession, failure: BaseException | None) -> str | None:
    """The failure text for a test body that passed: swallowed mismatches, refusals, faults."""
    from cassette_provider.pytest.reports import refused_report, swallowed_report

    misses = session.handle.provider.misses
    if misses:
        return swallowed_report(misses, failure)
    refused = () if session.guard is None else session.guard.refused
    if refused:
        return refused_report(refused, BLOCK_OPTION)
    return None if failure is None else _failure_message(session, failure)


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
            late = session.finish(passed=False, interrupted=not isinstance(error, Exception))
            session.settle(passed=False)
            from cassette_topology.errors import CASSETTE_MISMATCH

            # The test failed: calls it never reached are part of that failure, not a second
            # report (a write fault still is).
            if getattr(late, "code", None) == CASSETTE_MISMATCH:
                late = None
            notes = [_failure_message(session, late)] if late is not None else []
            misses = session.handle.provider.misses
            if misses and find_mismatch(error) is None:
                from cassette_provider.pytest.reports import swallowed_report

                notes.insert(0, swallowed_report(misses, None))
            kept = session.not_committed_note(item.nodeid)
            if kept is not None:
                notes.append(kept)
            if notes:
                item.stash[_LATE_FAILURE] = "\n\n".join(notes)
        raise
    if session is not None:
        failure = _outcome_failure(session, session.finish(passed=True))
        failure = failure or session.no_call_failure(item.nodeid)
        unsettled = session.settle(passed=failure is None)
        if failure is None and unsettled is not None:
            failure = _failure_message(session, unsettled)
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
    return _legacy_marker_hint()


def _legacy_marker_hint() -> str:
    return (
        f"@pytest.mark.{LEGACY_MARKER} only configures a test that requests the "
        f"subagent_cassette fixture; use @pytest.mark.{MARKER} to switch the cassette on"
    )


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
        from cassette_provider.pytest.reports import rerecord_line

        next_step = rerecord_line(record_command(OPTION, item.nodeid, "rewrite"))
        replacement = mismatch_report(call.excinfo.value, next_step)
        if replacement is not None:
            report.longrepr = replacement
        late = item.stash.get(_LATE_FAILURE, None)
        if late is not None:
            report.sections.append(("subagent cassette teardown", late))
        if session is None:
            hint = _no_provider_hint(item, call.excinfo.value)
            if hint is not None:
                report.sections.append((HINT_SECTION, hint))
        else:
            from cassette_provider.pytest.wording import hints_for

            for hint in hints_for(call.excinfo.value):
                report.sections.append((HINT_SECTION, hint))
    return report


def _add_stats(totals: dict[str, int], stats: Mapping[str, object]) -> None:
    """Count one test: replayed or recorded, its live (recorded) calls and its covered calls."""
    recorded = stats.get("recorded", 0)
    covered = stats.get("covered", 0)
    live = recorded if isinstance(recorded, int) else 0
    action = stats.get("action")
    if action == NOT_COMMITTED:
        kind = "not_committed"
    else:
        kind = "recorded" if action == "record" or live else "replayed"
    totals[kind] = totals.get(kind, 0) + 1
    totals["live_calls"] = totals.get("live_calls", 0) + live
    totals["covered"] = totals.get("covered", 0) + (covered if isinstance(covered, int) else 0)


class _RunTotals:
    """The run's cassette tally; xdist workers' reports reach the controller's hooks too."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self.totals: dict[str, int] = {}
        self.drifts: list[tuple[str, Mapping[str, object]]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Add a test's cassette use (the call phase's report carries it)."""
        stats = getattr(report, REPORT_ATTRIBUTE, None)
        if report.when == "call" and isinstance(stats, Mapping):
            _add_stats(self.totals, stats)
            drift = stats.get("drift")
            if isinstance(drift, Mapping):
                self.drifts.append((report.nodeid, drift))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """One line at the end of a run that used subagent cassettes."""
        if not self.totals or hasattr(self._config, "workerinput"):
            return
        from cassette_provider.pytest.reports import drift_summary, summary_line

        if self.drifts:
            terminalreporter.section("subagent cassette drift")
            for line in drift_summary(sorted(self.drifts, key=lambda item: item[0])):
                terminalreporter.write_line(line)
        terminalreporter.write_line(summary_line(self.totals))
