"""Unused cassettes across a whole run, with or without pytest-xdist (issue 25).

Each process that runs tests (the only one, or every xdist worker) keeps a `UseRecord`: the
cassette folders of the modules it collected, which items it reported, and, per cassette a
test installed, its call keys and those a live call used. An xdist worker ships its record to
the controller through `config.workeroutput`; the controller gathers them in
`pytest_testnodedown`. Either way the same `find_unused` merges the records, so `-n 2` and
`-n 0` report the same interactions and files.

*Unused interactions*: in a cassette some test replayed, the call keys no test replayed or
covered (a cassette any test re-recorded is skipped: its interactions are new). *Unused
files*: `*.cassette.jsonl` files under `<test dir>/cassettes/` that no test installed. A
folder is only searched when the run covered it: every test module in that directory was
collected, none of its items was deselected, and every item reached its setup (so `-k`, a
single file or `-x` never report another test's cassette). An item that was skipped or failed
before its call keeps its default cassette path from being reported.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

import pytest

__all__ = [
    "UNUSED_INI",
    "UNUSED_MODES",
    "UNUSED_OPTION",
    "UnusedCassettes",
    "UnusedReport",
    "UseRecord",
    "find_unused",
    "parse_unused_mode",
]

UnusedMode: TypeAlias = Literal["warn", "fail"]
UNUSED_MODES: Final[tuple[UnusedMode, ...]] = ("warn", "fail")
UNUSED_OPTION: Final = "--subagent-cassette-unused"
UNUSED_INI: Final = "subagent_cassette_unused"
_OUTPUT_KEY: Final = "subagent_cassette_use"
_SUFFIX: Final = ".cassette.jsonl"

Record: TypeAlias = dict[str, object]


@dataclass(slots=True)
class UseRecord:
    """One process's view: collected items by cassette folder, items reported, cassettes used.

    Plain data throughout (`as_data`), so an xdist worker can send it to the controller.
    """

    folders: dict[str, list[str]] = field(default_factory=dict)
    modules: dict[str, list[str]] = field(default_factory=dict)
    deselected: set[str] = field(default_factory=set)
    reached: set[str] = field(default_factory=set)
    claimed: set[str] = field(default_factory=set)
    cassettes: dict[str, dict[str, object]] = field(default_factory=dict)
    defaults: dict[str, str] = field(default_factory=dict)

    def collected(
        self, items: Sequence[pytest.Item], default_path: Callable[[Path, str], Path]
    ) -> None:
        """Remember each item under its directory's cassette folder, its module, its file."""
        for item in items:
            module = Path(str(item.path))
            folder = str(module.parent / "cassettes")
            self.folders.setdefault(folder, []).append(item.nodeid)
            names = self.modules.setdefault(folder, [])
            if module.name not in names:
                names.append(module.name)
            self.defaults[item.nodeid] = os.path.abspath(default_path(module, item.nodeid))

    def deselect(self, items: Sequence[pytest.Item]) -> None:
        """A deselected item's folder is not searched for unused files."""
        for item in items:
            self.deselected.add(str(Path(str(item.path)).parent / "cassettes"))

    def reported(self, report: pytest.TestReport) -> None:
        """An item reached its setup; one that did not pass it claims its default file."""
        if report.when != "setup":
            return
        self.reached.add(report.nodeid)
        default = self.defaults.get(report.nodeid)
        if not report.passed and default is not None:
            self.claimed.add(default)

    def used(self, path: str, keys: Iterable[str], used: Iterable[str], *, recorded: bool) -> None:
        """A test installed the cassette at `path`: its call keys and those it used."""
        entry = self.cassettes.setdefault(path, {"keys": [], "used": [], "recorded": False})
        entry["keys"] = sorted({*_strings(entry["keys"]), *keys})
        entry["used"] = sorted({*_strings(entry["used"]), *used})
        entry["recorded"] = entry["recorded"] is True or recorded

    def as_data(self) -> Record:
        """Plain JSON-able data (what a worker sends)."""
        return {
            "folders": self.folders,
            "modules": self.modules,
            "deselected": sorted(self.deselected),
            "reached": sorted(self.reached),
            "claimed": sorted(self.claimed),
            "cassettes": self.cassettes,
        }


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


@dataclass(frozen=True, slots=True)
class UnusedReport:
    """Unused interactions by cassette path, and unused cassette files, both sorted."""

    interactions: tuple[tuple[str, tuple[str, ...]], ...]
    files: tuple[str, ...]

    @property
    def empty(self) -> bool:
        """Nothing unused."""
        return not self.interactions and not self.files


def find_unused(
    records: Iterable[Mapping[str, object]],
    python_files: Sequence[str],
    *,
    complete: bool = True,
) -> UnusedReport:
    """Merge every process's record and find what no test used (the one merge for all).

    `python_files` are pytest's module name patterns, to tell whether every test module of a
    directory was collected; `complete` is False when a worker was lost (no files reported).
    """
    folders: dict[str, set[str]] = {}
    modules: dict[str, set[str]] = {}
    deselected: set[str] = set()
    reached: set[str] = set()
    claimed: set[str] = set()
    keys: dict[str, set[str]] = {}
    used: dict[str, set[str]] = {}
    recorded: set[str] = set()
    for record in records:
        for folder, nodeids in _mapping(record.get("folders")).items():
            folders.setdefault(folder, set()).update(_strings(nodeids))
        for folder, names in _mapping(record.get("modules")).items():
            modules.setdefault(folder, set()).update(_strings(names))
        deselected.update(_strings(record.get("deselected")))
        reached.update(_strings(record.get("reached")))
        claimed.update(_strings(record.get("claimed")))
        for path, entry in _mapping(record.get("cassettes")).items():
            facts = _mapping(entry)
            keys.setdefault(path, set()).update(_strings(facts.get("keys")))
            used.setdefault(path, set()).update(_strings(facts.get("used")))
            if facts.get("recorded") is True:
                recorded.add(path)
    interactions = tuple(
        (path, tuple(sorted(keys[path] - used.get(path, set()))))
        for path in sorted(keys)
        if path not in recorded and keys[path] - used.get(path, set())
    )
    files: list[str] = []
    if complete:
        for folder in sorted(folders):
            if not os.path.isdir(folder):
                continue  # most test directories have no cassette folder: nothing to scan
            if not _covered(folder, folders[folder], modules.get(folder, set()), python_files):
                continue
            if folder in deselected or not folders[folder] <= reached:
                continue
            files.extend(
                path
                for path in _cassette_files(Path(folder))
                if path not in keys and path not in claimed
            )
    return UnusedReport(interactions, tuple(sorted(files)))


def _covered(
    folder: str, nodeids: set[str], collected: set[str], python_files: Sequence[str]
) -> bool:
    """Every test module in the folder's directory was collected (so none was left out)."""
    directory = Path(folder).parent
    try:
        names = [entry.name for entry in os.scandir(directory) if entry.is_file()]
    except OSError:
        return False
    present = {name for name in names if any(fnmatch.fnmatch(name, p) for p in python_files)}
    return bool(nodeids) and present <= collected


def _cassette_files(folder: Path) -> list[str]:
    """Every `*.cassette.jsonl` under the folder (an iterative walk; partial files excluded)."""
    found: list[str] = []
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
            elif entry.name.endswith(_SUFFIX):
                found.append(str(Path(entry.path)))
    return found


def parse_unused_mode(value: object) -> UnusedMode:
    """`warn` or `fail`, else a usage error naming both."""
    for mode in UNUSED_MODES:
        if value == mode:
            return mode
    raise pytest.UsageError(f"{UNUSED_OPTION} must be warn or fail; got {value!r}")


class UnusedCassettes:
    """The run's plugin: records use per process, merges at the end, reports or fails."""

    def __init__(
        self,
        config: pytest.Config,
        default_path: Callable[[Path, str], Path],
        render: Callable[[UnusedReport, Path], list[str]],
    ) -> None:
        self._config = config
        self._default_path = default_path
        self._render = render
        self._worker = hasattr(config, "workerinput")
        self.record = UseRecord()
        self._gathered: list[Mapping[str, object]] = []
        self._lost = False
        self.report: UnusedReport | None = None
        given = config.getoption("subagent_cassette_unused", None) or config.getini(UNUSED_INI)
        self.mode = parse_unused_mode(given or "warn")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """The items this process will run (after deselection)."""
        self.record.collected(session.items, self._default_path)

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        """Items `-k`, `-m` or a plugin left out: their folders are not searched."""
        self.record.deselect(items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Which items reached their setup, and which never ran their body."""
        self.record.reported(report)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """xdist controller: keep a finished worker's record; a lost worker's is missing."""
        data = getattr(node, "workeroutput", {}).get(_OUTPUT_KEY)
        if error is not None or not isinstance(data, Mapping):
            self._lost = True
            return
        self._gathered.append(data)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        """A worker ships its record; the controller (or a plain run) merges and judges."""
        if self._worker:
            self._config.workeroutput[_OUTPUT_KEY] = self.record.as_data()  # type: ignore[attr-defined]
            return
        patterns = [str(p) for p in self._config.getini("python_files")]
        records = [*self._gathered, self.record.as_data()]
        self.report = find_unused(records, patterns, complete=not self._lost)
        if self.mode == "fail" and not self.report.empty and session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """The unused interactions and files, when there are any (controller only)."""
        if self._worker or self.report is None or self.report.empty:
            return
        title = "subagent cassettes unused" + (" (failing the run)" if self.mode == "fail" else "")
        terminalreporter.section(title, yellow=self.mode == "warn", red=self.mode == "fail")
        for line in self._render(self.report, self._config.rootpath):
            terminalreporter.write_line(line)
