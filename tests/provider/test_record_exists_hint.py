"""Recording over an existing cassette with the default `create` says what records it again.

WRITE-3's message stays the reference's (`cannot open cassette "<abs>" in create mode`); the
exception carries a note naming `write_mode="truncate"`, `"append"` and `ReplayConfig`, which
a traceback (and pytest) prints under the message.
"""

from __future__ import annotations

import traceback
from pathlib import Path

import pytest
from cassette_format import CassetteFormatError
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)


def _registry() -> ProviderRegistry:
    registry = ProviderRegistry()
    registry.register(
        FunctionProvider("spawn", lambda request, child: {"output": [], "stopReason": "completed"})
    )
    return registry


def _record(path: Path, config: RecordConfig) -> None:
    registry = _registry()
    with install_cassette(registry, config):
        registry.run_sync("cassette", StartRequest(prompt=[], parent=SimpleAgent()))


def test_a_second_default_recording_names_write_mode_under_the_reference_message(
    tmp_path: Path,
) -> None:
    path = tmp_path / "my.cassette.jsonl"
    _record(path, RecordConfig(file=str(path)))
    before = path.read_bytes()
    with pytest.raises(CassetteFormatError) as refused:
        _record(path, RecordConfig(file=str(path)))
    assert refused.value.message == f'cannot open cassette "{path}" in create mode'
    shown = "".join(traceback.format_exception(refused.value))
    assert 'write_mode="truncate" to record it again' in shown
    assert path.read_bytes() == before
    _record(path, RecordConfig(file=str(path), write_mode="truncate"))  # what the hint says
    assert path.read_bytes() != before


def test_another_refusal_carries_no_such_note(tmp_path: Path) -> None:
    folder = tmp_path / "a.cassette.jsonl"
    folder.mkdir()  # a directory where the cassette would go: not "it exists, re-record"
    with pytest.raises(CassetteFormatError) as refused:
        _record(folder, RecordConfig(file=str(folder), write_mode="truncate"))
    assert not getattr(refused.value, "__notes__", [])
