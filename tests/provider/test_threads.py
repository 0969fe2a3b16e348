"""Recording and replay with calls from several threads and event loops (issue 27).

Harnesses start children from worker threads, each with its own `asyncio.run` (a
`ThreadPoolExecutor`; LangGraph's sync `invoke` with `Send` fan-out), from `asyncio.run` called
several times in sequence, or from sync and async code at once. Each scenario records, checks
the cassette verifies and every child got its own outcome, then replays it the same way with
default settings (assert_consumed on). A barrier inside the upstream holds every child until all
are in flight, so their lines really race. Each test runs under a pytest timeout: a deadlock
fails it instead of hanging the run. Nothing here measures time.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_provider import (
    AbortController,
    CassetteError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    SubagentResult,
    aborted_result,
    install_cassette,
)
from provider.support_provider import answer, prompt

#: A deadlock ends the process with every thread's stack instead of hanging the run.
pytestmark = pytest.mark.timeout(120, method="thread")

HANG_GUARD_S = 100.0
"""Turns a barrier that can never fill into a failure (a deadlock), not a timing."""


def request(label: str, parent: SimpleAgent) -> StartRequest:
    """A child request whose prompt and label are its own."""
    return StartRequest(prompt=prompt(f"task {label}"), parent=parent, label=label)


def spawn(registry: ProviderRegistry, *, in_flight: int = 0) -> None:
    """Register the upstream `spawn`: it answers each child with its own label.

    With `in_flight`, every child waits (on a worker thread) until that many are running.
    """
    barrier = threading.Barrier(in_flight) if in_flight > 1 else None

    async def run(start: StartRequest, _child: SimpleAgent) -> object:
        if barrier is not None:
            await asyncio.to_thread(barrier.wait, HANG_GUARD_S)
        await asyncio.sleep(0)
        return answer(f"done {start.label}")

    registry.register(FunctionProvider("spawn", run))


@contextmanager
def recording(path: Path, *, in_flight: int = 0) -> Iterator[ProviderRegistry]:
    """A registry with `spawn`, recording into `path` for the block (sync context manager)."""
    registry = ProviderRegistry()
    spawn(registry, in_flight=in_flight)
    with install_cassette(registry, RecordConfig(file=str(path))):
        yield registry


@contextmanager
def replaying(path: Path) -> Iterator[ProviderRegistry]:
    """A registry replaying `path` with defaults and no upstream at all."""
    registry = ProviderRegistry()
    with install_cassette(registry, ReplayConfig(file=str(path))):
        yield registry


async def child(registry: ProviderRegistry, label: str, parent: SimpleAgent) -> SubagentResult:
    """One child's whole life, awaited on the caller's loop."""
    return await registry.run("cassette", request(label, parent))


def labels(count: int) -> list[str]:
    return [f"child-{index:02d}" for index in range(count)]


def assert_recorded(path: Path, expected: list[str]) -> None:
    """The cassette verifies, holds one line per child with its own result, sequences 1..N."""
    assert verify_file(path)["interactions"] == len(expected)
    interactions = load_cassette(path).interactions
    assert sorted(i.sequence for i in interactions) == list(range(1, len(expected) + 1))
    keys = {i.call_key for i in interactions}
    assert len(keys) == len(expected)


def in_threads(count: int, each: Callable[[str], SubagentResult]) -> dict[str, SubagentResult]:
    """Run `each(label)` for `count` labels, one worker thread per label, all at once."""
    gate = threading.Barrier(count)

    def started(label: str) -> SubagentResult:
        gate.wait(HANG_GUARD_S)
        return each(label)

    names = labels(count)
    with ThreadPoolExecutor(count) as pool:
        return dict(zip(names, pool.map(started, names), strict=True))


@pytest.mark.parametrize("threads", [2, 8, 32])
def test_threads_each_with_their_own_asyncio_run_record_and_replay(
    tmp_path: Path, threads: int
) -> None:
    path = tmp_path / "threads.cassette.jsonl"
    root = SimpleAgent(session_id="root")
    with recording(path, in_flight=threads) as registry:
        recorded = in_threads(threads, lambda label: asyncio.run(child(registry, label, root)))
    assert recorded == {label: answer(f"done {label}") for label in labels(threads)}
    assert_recorded(path, labels(threads))

    with replaying(path) as registry:
        replayed = in_threads(threads, lambda label: asyncio.run(child(registry, label, root)))
    assert replayed == recorded


def test_sequential_asyncio_runs_share_one_recording(tmp_path: Path) -> None:
    path = tmp_path / "sequential.cassette.jsonl"
    root = SimpleAgent(session_id="root")
    batches = [labels(9)[first : first + 3] for first in (0, 3, 6)]

    async def batch(registry: ProviderRegistry, names: list[str]) -> list[SubagentResult]:
        return list(await asyncio.gather(*(child(registry, name, root) for name in names)))

    with recording(path) as registry:
        recorded = [asyncio.run(batch(registry, names)) for names in batches]
    assert recorded == [[answer(f"done {name}") for name in names] for names in batches]
    assert_recorded(path, labels(9))

    with replaying(path) as registry:
        replayed = [asyncio.run(batch(registry, names)) for names in reversed(batches)]
    assert replayed == list(reversed(recorded))


def test_sync_and_async_children_mix(tmp_path: Path) -> None:
    """Four children awaited on one loop and four run from sync code on threads, all at once."""
    path = tmp_path / "mixed.cassette.jsonl"
    root = SimpleAgent(session_id="root")
    names = labels(8)

    async def harness(registry: ProviderRegistry) -> list[SubagentResult]:
        # Room for the four sync callers and the four async children's barrier waits.
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(8))
        awaited = [child(registry, name, root) for name in names[:4]]
        synced = [
            asyncio.to_thread(registry.run_sync, "cassette", request(name, root))
            for name in names[4:]
        ]
        return list(await asyncio.gather(*awaited, *synced))

    with recording(path, in_flight=8) as registry:
        recorded = asyncio.run(harness(registry))
    assert recorded == [answer(f"done {name}") for name in names]
    assert_recorded(path, names)

    with replaying(path) as registry:
        assert asyncio.run(harness(registry)) == recorded


def test_a_child_starts_its_own_child_from_another_thread(tmp_path: Path) -> None:
    """A grandchild started with `run_sync` on a worker thread nests under its child."""
    path = tmp_path / "nested.cassette.jsonl"
    root = SimpleAgent(session_id="root")
    registry = ProviderRegistry()

    async def run(start: StartRequest, me: SimpleAgent) -> object:
        if start.label == "grandchild":
            return answer("leaf")
        below = await asyncio.to_thread(registry.run_sync, "cassette", request("grandchild", me))
        return answer(f"{start.label} saw {below['output'][0]['text']}")

    registry.register(FunctionProvider("spawn", run))
    names = labels(4)
    with install_cassette(registry, RecordConfig(file=str(path))):
        recorded = in_threads(4, lambda label: registry.run_sync("cassette", request(label, root)))
    assert recorded == {name: answer(f"{name} saw leaf") for name in names}
    interactions = load_cassette(path).interactions
    assert verify_file(path)["interactions"] == 8
    children = {i.call_key for i in interactions if i.parent_key == "root"}
    assert len(children) == 4
    assert sorted(i.parent_key for i in interactions if i.parent_key != "root") == sorted(children)

    with replaying(path) as replay:  # grandchildren are covered by their delivered parents
        assert in_threads(4, lambda label: replay.run_sync("cassette", request(label, root))) == (
            recorded
        )


def test_an_abort_from_another_thread_ends_a_child_as_aborted(tmp_path: Path) -> None:
    path = tmp_path / "aborted.cassette.jsonl"
    root = SimpleAgent(session_id="root")
    controller = AbortController()
    entered = threading.Event()
    registry = ProviderRegistry()

    async def run(_start: StartRequest, _child: SimpleAgent) -> object:
        entered.set()
        await asyncio.Event().wait()  # only the abort ends this child
        return answer("never")

    registry.register(FunctionProvider("spawn", run))
    call = StartRequest(prompt=prompt("wait"), parent=root, label="waits", signal=controller.signal)
    with install_cassette(registry, RecordConfig(file=str(path))), ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(registry.run_sync, "cassette", call)
        assert entered.wait(HANG_GUARD_S)
        controller.abort()  # from this thread; the child's loop runs on the worker
        assert waiting.result() == aborted_result()
    assert verify_file(path)["interactions"] == 1


async def test_abort_listeners_run_on_their_own_loop_and_waiters_wake_there() -> None:
    controller = AbortController()
    here = threading.get_ident()
    seen: list[tuple[object, int]] = []
    controller.signal.add_listener(lambda reason: seen.append((reason, threading.get_ident())))
    waiter = asyncio.ensure_future(controller.signal.wait())
    await asyncio.sleep(0)
    await asyncio.to_thread(controller.abort, "stop")  # aborted from a worker thread
    assert await waiter == "stop"
    await asyncio.sleep(0)  # the listener was scheduled on this loop
    assert seen == [("stop", here)]


def test_a_handle_disposed_on_another_loop_and_again_gives_one_outcome(tmp_path: Path) -> None:
    path = tmp_path / "dispose.cassette.jsonl"
    root = SimpleAgent(session_id="root")
    registry = ProviderRegistry()
    spawn(registry)
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    assert registry.run_sync("cassette", request("one", root)) == answer("done one")
    with ThreadPoolExecutor(2) as pool:  # two loops on two threads dispose at once
        for disposed in [pool.submit(handle.dispose_sync) for _ in range(2)]:
            disposed.result()
    asyncio.run(handle.dispose())  # memoized: a third loop gets the same (clean) outcome
    assert verify_file(path)["interactions"] == 1


def test_sync_helpers_refuse_a_running_loop_and_name_the_async_form(tmp_path: Path) -> None:
    registry = ProviderRegistry()
    spawn(registry)
    handle = install_cassette(registry, RecordConfig(file=str(tmp_path / "x.cassette.jsonl")))

    async def inside() -> None:
        with pytest.raises(CassetteError, match=r"await handle\.dispose\(\)") as refused:
            handle.dispose_sync()
        assert refused.value.code == "INVALID_CONFIG"
        with pytest.raises(CassetteError, match=r"await registry\.run\(\.\.\.\)"):
            registry.run_sync("cassette", request("x", SimpleAgent()))
        await handle.dispose()

    asyncio.run(inside())


def test_a_failing_sync_block_keeps_the_target_untouched(tmp_path: Path) -> None:
    path = tmp_path / "failed.cassette.jsonl"
    root = SimpleAgent(session_id="root")

    def failing_harness() -> None:
        with recording(path) as registry:
            registry.run_sync("cassette", request("one", root))
            raise RuntimeError("harness failed")

    with pytest.raises(RuntimeError, match="harness failed"):
        failing_harness()
    assert not path.exists()  # the partial file holds the call; nothing was committed
