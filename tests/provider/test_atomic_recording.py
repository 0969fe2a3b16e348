"""Recording through the provider commits atomically and keeps what a full disk allowed (issue 12).

`create`/`truncate` recordings reach the target only on a clean `dispose()`; an exception
inside the handle or a cancelled dispose keeps the committed cassette byte-identical and
leaves the partial file. A disk that fills mid-recording leaves a file that verifies and
replays with default settings, and `dispose()` returns.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path

import pytest
from cassette_format import WriteMode, verify_file
from cassette_format.write.partial import partial_siblings
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from provider import recording_children
from provider.support_provider import answer, prompt
from support.tmpfs import small_tmpfs

ROOT = SimpleAgent(session_id="root")


def _registry() -> ProviderRegistry:
    registry = ProviderRegistry()

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return answer(request.label or "")

    registry.register(FunctionProvider("spawn", run))
    return registry


async def _call(registry: ProviderRegistry, label: str) -> object:
    child = await registry.start(
        "cassette", StartRequest(prompt=prompt(label * 20), parent=ROOT, label=label)
    )
    try:
        return await child.result
    finally:
        await child.dispose()


async def _record(path: Path, labels: list[str], mode: WriteMode = "create") -> None:
    registry = _registry()
    async with install_cassette(registry, RecordConfig(file=str(path), write_mode=mode)):
        for label in labels:
            assert await _call(registry, label) == answer(label)


async def _replay(path: Path, labels: list[str]) -> list[object]:
    """Replay the labels with default settings (assert_consumed on); their results."""
    registry = ProviderRegistry()
    async with install_cassette(registry, ReplayConfig(file=str(path))):
        return [await _call(registry, label) for label in labels]


async def _record_then_fail(path: Path) -> None:
    registry = _registry()
    async with install_cassette(registry, RecordConfig(file=str(path), write_mode="truncate")):
        assert await _call(registry, "replacement") == answer("replacement")
        raise RuntimeError("the harness failed mid-recording")


async def test_a_clean_dispose_replaces_the_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    await _record(path, ["a", "b"])
    await _record(path, ["c"], "truncate")
    assert partial_siblings(str(path)) == ()
    assert await _replay(path, ["c"]) == [answer("c")]


async def test_an_exception_in_the_handle_keeps_the_committed_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    await _record(path, ["a", "b"])
    before = path.read_bytes()
    with pytest.raises(RuntimeError, match="mid-recording"):
        await _record_then_fail(path)
    assert path.read_bytes() == before
    (partial,) = partial_siblings(str(path))
    assert verify_file(partial.path)["interactions"] == 1
    assert await _replay(path, ["a", "b"]) == [answer("a"), answer("b")]


async def test_a_cancelled_recording_keeps_the_committed_cassette(tmp_path: Path) -> None:
    """Ctrl-C under `asyncio.run` cancels the main task inside the handle: nothing commits."""
    path = tmp_path / "c.cassette.jsonl"
    await _record(path, ["a"])
    before = path.read_bytes()
    registry = ProviderRegistry()
    entered = asyncio.Event()

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        entered.set()
        await asyncio.Event().wait()  # never finishes on its own
        return answer(request.label or "")

    registry.register(FunctionProvider("spawn", run))

    async def harness() -> None:
        config = RecordConfig(file=str(path), write_mode="truncate")
        async with install_cassette(registry, config):
            await _call(registry, "fast-enough")  # entered, then cancelled with the task

    main = asyncio.ensure_future(harness())
    await entered.wait()
    main.cancel()
    with pytest.raises(asyncio.CancelledError):
        await main
    assert path.read_bytes() == before
    (partial,) = partial_siblings(str(path))
    assert verify_file(partial.path)["interactions"] == 1  # the aborted call ended as a line
    assert await _replay(path, ["a"]) == [answer("a")]


def test_a_file_size_limit_mid_recording_leaves_a_file_that_replays(tmp_path: Path) -> None:
    """The portable full disk: RLIMIT_FSIZE in a child, writes fail with EFBIG."""
    path = tmp_path / "c.cassette.jsonl"
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    child = context.Process(
        target=recording_children.record_past_file_size_limit,
        args=(str(path), 6_000, results),
    )
    child.start()
    persisted, failure, disposed = results.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0  # dispose() returned
    assert len(persisted) >= 1
    assert f'cannot write cassette "{path}"' in failure
    assert "cut back to its last complete record" in failure
    assert disposed == failure  # the first write error, loudly, at dispose
    assert verify_file(path)["interactions"] == len(persisted)
    replayed = asyncio.run(_replay(path, persisted))
    assert replayed == [answer(label) for label in persisted]


async def test_a_full_tmpfs_mid_recording_leaves_a_file_that_replays(tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "disk", "64k") as disk:
        path = disk / "c.cassette.jsonl"
        persisted, failure, disposed = await recording_children.record_until_refused(str(path))
        assert len(persisted) >= 1
        assert "cut back to its last complete record" in failure
        assert disposed == failure
        assert verify_file(path)["interactions"] == len(persisted)
        replayed = await _replay(path, persisted)
        assert replayed == [answer(label) for label in persisted]
