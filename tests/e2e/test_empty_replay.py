"""Replay of a cassette with no interactions fails at install, naming why (issue 12).

The reference's own header-only cassette verifies (`OK: 0 interaction(s)`, unchanged by D-4),
but replaying it could only end in a misleading `parent-not-found` on the first call; it is
refused up front with CASSETTE_EMPTY, whatever the replay options.
"""

from __future__ import annotations

import io

import pytest
from cassette_cli import main
from cassette_format.errors import CassetteError
from cassette_provider import ProviderRegistry, ReplayConfig, install_cassette
from cassette_provider.replay.replayer import CASSETTE_EMPTY
from support.paths import INTEROP

EMPTY = INTEROP / "cassettes" / "valid-empty.cassette.jsonl"


def test_the_reference_empty_cassette_still_verifies() -> None:  # D-4, CLI
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["verify", str(EMPTY)], stdout=stdout, stderr=stderr) == 0
    assert stdout.getvalue().startswith("OK: 0 interaction(s)")


@pytest.mark.parametrize(
    "options",
    [{}, {"assert_consumed": False}, {"strict_subtrees": True}, {"timing": "recorded"}],
)
def test_the_reference_empty_cassette_is_refused_for_replay(options: dict[str, object]) -> None:
    registry = ProviderRegistry()
    with pytest.raises(CassetteError) as refused:
        install_cassette(registry, ReplayConfig(file=str(EMPTY), **options))  # type: ignore[arg-type]
    assert refused.value.code == CASSETTE_EMPTY
    assert str(refused.value) == (
        f'cassette "{EMPTY}" holds no interactions: the recording made no subagent calls, '
        "or it was interrupted before any call was written; record it again"
    )
    assert registry.get("cassette") is None
