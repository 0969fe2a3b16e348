"""One-line warnings for pytest-recording's options, which never reach subagent cassettes.

pytest-recording (vcrpy) owns `--record-mode` and the `vcr_config` fixture; they configure
HTTP cassettes, not subagent cassettes, whose names are `--subagent-cassette-mode` and
`subagent_cassette_config` so both plugins can be installed together. A user who passes
`--record-mode=all` or writes a `vcr_config` expecting it to re-record or configure their
subagent cassettes would otherwise see a silent replay, so the first cassette test of the run
warns once with the option that does apply. The messages are pure; `warn_foreign_options`
reads the options of a test's run and warns. Loaded only by tests that use a cassette.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import pytest

from cassette_provider.pytest.options import OPTION, mode_given

__all__ = [
    "SubagentCassetteOptionWarning",
    "record_mode_warning",
    "vcr_config_warning",
    "warn_foreign_options",
]

_CHECKED = pytest.StashKey[bool]()


class SubagentCassetteOptionWarning(UserWarning):
    """An option of another cassette plugin was given; subagent cassettes do not read it."""


def record_mode_warning(vcr_mode: object, subagent_mode_given: bool, option: str) -> str | None:
    """`--record-mode=X` without a subagent mode of its own: name the option that applies."""
    if not isinstance(vcr_mode, str) or not vcr_mode or subagent_mode_given:
        return None
    return (
        f"--record-mode={vcr_mode} is pytest-recording's option and does not apply to subagent "
        f"cassettes; use {option}={vcr_mode}"
    )


def vcr_config_warning(vcr_config: object, subagent_config: Mapping[str, object]) -> str | None:
    """A non-empty `vcr_config` beside an empty `subagent_cassette_config`: name the fixture."""
    if not isinstance(vcr_config, Mapping) or not vcr_config or subagent_config:
        return None
    return (
        "vcr_config configures pytest-recording's cassettes, not subagent cassettes; put "
        "subagent cassette options in a subagent_cassette_config fixture"
    )


def warn_foreign_options(request: pytest.FixtureRequest) -> None:
    """Once per run: pytest-recording's `--record-mode`/`vcr_config` do not reach this plugin."""
    config = request.config
    if config.stash.get(_CHECKED, False):
        return
    config.stash[_CHECKED] = True
    try:
        vcr_config = request.getfixturevalue("vcr_config")
    except pytest.FixtureLookupError:
        vcr_config = None
    ours = request.getfixturevalue("subagent_cassette_config")
    messages = (
        record_mode_warning(config.getoption("record_mode", None), mode_given(config), OPTION),
        vcr_config_warning(vcr_config, ours if isinstance(ours, Mapping) else {}),
    )
    for message in messages:
        if message is not None:
            warnings.warn(SubagentCassetteOptionWarning(message), stacklevel=2)
