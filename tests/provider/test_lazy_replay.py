"""Replay installs from the lazy reader and reads an outcome only when it delivers it (issue 23).

`install_cassette` verifies the file in one pass without loading it; the delivered line is
read back and verified again, so bytes changed after install fail closed at delivery with
the loader's own error, and nothing is consumed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_format import CassetteFormatError, FormatProblem, read_cassette
from cassette_provider import (
    ProviderRegistry,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from provider.support_provider import answer, prompt, record_labels
from returns.result import Failure


def _loader_error(path: Path) -> FormatProblem:
    loaded = read_cassette(path)
    assert isinstance(loaded, Failure)
    problem = loaded.failure()
    assert isinstance(problem, FormatProblem)
    return problem


def _tamper(path: Path, before: bytes, after: bytes) -> None:
    """Change bytes in place (same file, same length), as a later writer or disk fault would."""
    data = path.read_bytes()
    assert len(before) == len(after)
    assert data.count(before) == 1
    with path.open("r+b") as handle:
        handle.write(data.replace(before, after))


async def test_a_line_changed_after_install_fails_closed_when_delivered(tmp_path: Path) -> None:
    # FMT-10 rule 10 at delivery: the loader's error and message, and nothing consumed
    path = tmp_path / "two.cassette.jsonl"
    await record_labels(path, ("alpha", "beta"))
    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(path)))
    _tamper(path, b"recorded answer for beta", b"recorded answer for BETA")
    expected = _loader_error(path)
    assert expected.message == "line 3 hash mismatch"
    parent = SimpleAgent()
    alpha = await registry.start(
        "cassette", StartRequest(prompt=prompt("alpha"), parent=parent, label="alpha")
    )
    assert await alpha.result == answer("recorded answer for alpha")
    with pytest.raises(CassetteFormatError) as raised:
        await registry.start(
            "cassette", StartRequest(prompt=prompt("beta"), parent=parent, label="beta")
        )
    assert raised.value.problem == expected
    assert raised.value.code == "CASSETTE_FORMAT"
    tally = handle.replay_tally()
    assert tally is not None
    assert (tally.consumed, tally.remaining) == (1, 1)


async def test_a_line_changed_before_install_is_refused_as_the_loader_refuses(
    tmp_path: Path,
) -> None:  # FMT-10 rule 10 at install
    path = tmp_path / "one.cassette.jsonl"
    await record_labels(path, ("alpha",))
    _tamper(path, b"recorded answer for alpha", b"recorded answer for ALPHA")
    with pytest.raises(CassetteFormatError) as raised:
        install_cassette(ProviderRegistry(), ReplayConfig(file=str(path)))
    assert raised.value.problem == _loader_error(path)


async def test_install_never_loads_the_whole_cassette(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "one.cassette.jsonl"
    await record_labels(path, ("alpha",))

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("replay must not load the whole cassette")

    for name in ("read_cassette", "load_cassette", "parse_cassette"):
        monkeypatch.setattr(f"cassette_format.read.parse.{name}", refuse)
    monkeypatch.setattr("cassette_format.records.decode.decode_interaction", refuse)
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path)))
    monkeypatch.undo()  # delivery decodes the one line it delivers
    live = await registry.start(
        "cassette", StartRequest(prompt=prompt("alpha"), parent=SimpleAgent(), label="alpha")
    )
    assert await live.result == answer("recorded answer for alpha")
