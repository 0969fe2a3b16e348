"""The plugin's names and options: record modes, markers, flags, ini keys, and reading them.

Loaded by every pytest run (the entry point imports it), so it imports only pytest and the
standard library. Names are chosen to coexist with pytest-recording, vcrpy, cassetter and
llm-cassette in one environment: `--subagent-cassette-mode` (alias `--cassette-mode`), ini
`subagent_cassette_mode` (alias `cassette_mode`), env `SUBAGENT_CASSETTE_MODE`,
`--subagent-block-network`, the `subagent_cassette` marker and the `subagent_cassette_config`
fixture. The older `cassette` marker still configures a test that requests the fixture, but
never switches a cassette on by itself: llm-cassette owns that marker name.
"""

from __future__ import annotations

import os
from typing import Final, Literal, TypeAlias

import pytest

from cassette_provider.pytest.unused import UNUSED_INI, UNUSED_MODES, UNUSED_OPTION

__all__ = [
    "BLOCK_INI",
    "BLOCK_OPTION",
    "DEFAULT_MODE",
    "ENV",
    "ENV_SOURCE",
    "INI",
    "INI_ALIAS",
    "INI_SOURCE",
    "LEGACY_MARKER",
    "MARKER",
    "MARKER_SOURCE",
    "OPTION",
    "OPTION_ALIAS",
    "RECORD_MODES",
    "RecordMode",
    "add_options",
    "block_network_default",
    "configured_mode",
    "known_mode",
    "legacy_marker_hint",
    "mode_error",
    "mode_given",
    "parse_mode",
    "register_markers",
    "resolve_mode",
]

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


#: Where a record mode was read, as the mode error names it (the flag's choices are argparse's).
ENV_SOURCE: Final = f"the {ENV} environment variable"
INI_SOURCE: Final = f"the {INI} (or {INI_ALIAS}) ini option"
MARKER_SOURCE: Final = f"record_mode of the {MARKER} marker or the subagent_cassette_config fixture"


def resolve_mode(option: str | None, ini: str | None, env: str | None = None) -> RecordMode:
    """The effective record mode: command line, then environment, then ini; default `none`."""
    for value, source in ((option, OPTION), (env, ENV_SOURCE), (ini, INI_SOURCE)):
        if value:
            return parse_mode(value, source)
    return DEFAULT_MODE


def known_mode(value: object) -> RecordMode | None:
    """The record mode `value` names, or None."""
    return next((mode for mode in RECORD_MODES if value == mode), None)


def mode_error(value: object, source: str) -> str:
    """Why `value` is no record mode, naming where it was set so the user knows what to fix."""
    return (
        f"subagent cassette mode must be one of {', '.join(RECORD_MODES)}; "
        f"got {value!r} from {source}"
    )


def parse_mode(value: object, source: str) -> RecordMode:
    """A valid record mode, or a usage error naming the accepted ones and where it was set."""
    mode = known_mode(value)
    if mode is None:
        raise pytest.UsageError(mode_error(value, source))
    return mode


def add_options(parser: pytest.Parser) -> None:
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


def register_markers(config: pytest.Config) -> None:
    """Declare both marker names, so `--strict-markers` accepts them."""
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


def configured_mode(config: pytest.Config) -> RecordMode:
    """The run's record mode from the command line, the environment and the ini file."""
    ini = config.getini(INI) or config.getini(INI_ALIAS)
    return resolve_mode(
        config.getoption("subagent_cassette_mode", None),
        str(ini) if ini else None,
        os.environ.get(ENV) or None,
    )


def mode_given(config: pytest.Config) -> bool:
    """Whether the run names a subagent cassette mode anywhere (flag, environment, ini)."""
    return bool(
        config.getoption("subagent_cassette_mode", None)
        or os.environ.get(ENV)
        or config.getini(INI)
        or config.getini(INI_ALIAS)
    )


def block_network_default(config: pytest.Config) -> bool:
    """The run's network guard setting (flag or ini), for tests whose markers do not set it.

    An ini value that is no boolean is a usage error naming the option (pytest's own names
    only the value).
    """
    if config.getoption("subagent_block_network", False):
        return True
    try:
        return bool(config.getini(BLOCK_INI))
    except (ValueError, pytest.UsageError):
        raise pytest.UsageError(
            f"the {BLOCK_INI} ini option must be true or false (also yes/no, on/off, 1/0)"
        ) from None


def legacy_marker_hint() -> str:
    """What the older marker alone does not do, and the marker that does."""
    return (
        f"@pytest.mark.{LEGACY_MARKER} only configures a test that requests the "
        f"subagent_cassette fixture; use @pytest.mark.{MARKER} to switch the cassette on"
    )
