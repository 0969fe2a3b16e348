"""One-line warnings for pytest-recording's options, which never reach subagent cassettes.

pytest-recording (vcrpy) owns `--record-mode` and the `vcr_config` fixture; they configure
HTTP cassettes, not subagent cassettes, whose names are `--subagent-cassette-mode` and
`subagent_cassette_config` so both plugins can be installed together. A user who passes
`--record-mode=all` or writes a `vcr_config` expecting it to re-record or configure their
subagent cassettes would otherwise see a silent replay, so the first cassette test of the run
warns once with the option that does apply. Pure: the plugin reads the options and warns.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SubagentCassetteOptionWarning", "record_mode_warning", "vcr_config_warning"]


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
