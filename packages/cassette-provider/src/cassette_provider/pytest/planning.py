"""What one test does with its cassette, decided from its markers, config, mode and the disk.

`plan_cassette` is the pure decision; `plan_for` gathers its inputs from a test's request
(the `subagent_cassette_config` fixture, then marker layers farthest to nearest, nearest wins
per key) and fails the test with one line when an input is wrong. Loaded only by tests that
use a cassette.
"""

from __future__ import annotations

import inspect
import os
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, NoReturn, TypeAlias

import pytest
from cassette_canonical.display_text import display

from cassette_provider.install import RecordConfig, ReplayConfig
from cassette_provider.pytest.failed_recordings import (
    empty_cassette_message,
    holds_no_call,
    missing_cassette_message,
    record_command,
)
from cassette_provider.pytest.naming import (
    cassette_path,
    legacy_cassette_path,
    rename_instruction,
    safe_slug,
)
from cassette_provider.pytest.options import (
    LEGACY_MARKER,
    MARKER,
    MARKER_SOURCE,
    OPTION,
    RecordMode,
    block_network_default,
    configured_mode,
    known_mode,
    mode_error,
)

__all__ = [
    "PLAN_KEYS",
    "Action",
    "CassettePlan",
    "config_fields",
    "default_cassette_path",
    "merge_settings",
    "plan_cassette",
    "plan_for",
    "refuse_legacy_name",
    "rewrite_target",
    "safe_name",
    "split_for_provider",
    "split_options",
]

Action: TypeAlias = Literal["record", "replay", "new_episodes", "refresh"]
#: Settings the plugin decides itself; the rest are RecordConfig/ReplayConfig options.
PLAN_KEYS: Final = frozenset({"path", "record_mode", "block_network"})


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
    #: The `record_mode` the test's marker or config fixture sets (it overrides the run's mode).
    pinned: RecordMode | None = None


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


def refuse_legacy_name(new: Path, old: Path | None, mode: RecordMode, *, exists: bool) -> None:
    """Fail a reading mode whose cassette still carries its 0.2 name (a rename, never a guess)."""
    if exists or old is None or old == new or mode in {"all", "rewrite"} or not old.exists():
        return
    pytest.fail(display(rename_instruction(old, new, OPTION)), pytrace=False)


def plan_cassette(
    mode: RecordMode,
    path: Path,
    *,
    exists: bool,
    options: Mapping[str, object],
    empty: bool = False,
    nodeid: str = "",
    pinned: RecordMode | None = None,
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
    command = record_command(OPTION, nodeid or "<test node id>", "once", pinned)
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


def split_for_provider(
    options: Mapping[str, object],
) -> tuple[dict[str, object], dict[str, object]]:
    """Options split by the provider's RecordConfig and ReplayConfig fields."""
    return split_options(options, config_fields(RecordConfig), config_fields(ReplayConfig))


def rewrite_target(path: Path) -> Path:
    """The temporary sibling a `rewrite` recording writes before it may replace `path`."""
    return path.with_name(f"{path.name}.rewrite-{os.getpid()}-{secrets.token_hex(4)}")


def _marker_layers(node: pytest.Item) -> list[tuple[tuple[object, ...], Mapping[str, object]]]:
    """Marker layers of both names, farthest (module) to nearest (the test itself)."""
    closest_first = [mark for mark in node.iter_markers() if mark.name in {MARKER, LEGACY_MARKER}]
    return [(tuple(mark.args), mark.kwargs) for mark in reversed(closest_first)]


def _settings_for(request: pytest.FixtureRequest) -> dict[str, object]:
    base = request.getfixturevalue("subagent_cassette_config")
    if not isinstance(base, Mapping):
        pytest.fail("subagent_cassette_config must return a mapping", pytrace=False)
    return merge_settings(base, _marker_layers(request.node))


def _refuse(message: str) -> NoReturn:
    pytest.fail(message, pytrace=False)


def _cassette_file(
    request: pytest.FixtureRequest, raw_path: object, mode: RecordMode, test_file: Path
) -> Path:
    """The test's cassette: its default name (never a stale 0.2 name), or the given path."""
    if raw_path is None:
        path = default_cassette_path(test_file, request.node.nodeid)
        legacy = legacy_cassette_path(test_file, request.node.nodeid)
        refuse_legacy_name(path, legacy, mode, exists=path.exists())
        return path
    if isinstance(raw_path, str | Path):
        path = Path(raw_path)
        return path if path.is_absolute() else test_file.parent / path
    _refuse("subagent cassette path must be a string or a Path")


def plan_for(request: pytest.FixtureRequest) -> tuple[CassettePlan, RecordMode]:
    """Plan this test's cassette from the config, the markers, the mode and the file system."""
    settings = _settings_for(request)
    test_file = Path(str(request.node.path))
    override = settings.get("record_mode")
    pinned = None if override is None else known_mode(override)
    if override is None:
        mode = configured_mode(request.config)
    else:
        mode = pinned or _refuse(mode_error(override, MARKER_SOURCE))
    path = _cassette_file(request, settings.get("path"), mode, test_file)
    options = {k: v for k, v in settings.items() if k not in PLAN_KEYS}
    split_for_provider(options)  # unknown options fail before the mode or the file matter
    block = settings.get("block_network")
    if block is None:
        block = block_network_default(request.config)
    if not isinstance(block, bool):
        _refuse("subagent cassette block_network must be a boolean")
    exists = path.exists()
    plan = plan_cassette(
        mode,
        path,
        exists=exists,
        options=options,
        empty=exists and holds_no_call(path),
        nodeid=request.node.nodeid,
        pinned=pinned,
    )
    planned = CassettePlan(
        plan.action,
        plan.path,
        plan.write_mode,
        {**plan.options, "block_network": block},
        rewrite=plan.rewrite,
        pinned=pinned,
    )
    return planned, mode
