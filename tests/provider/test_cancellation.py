"""Every admitted call ends as a line: cancellation, timeouts, dispose and failed writes (issue 12).

Each scenario checks that the file verifies, that it replays with default settings, and that
`dispose()` returns; `_GUARD` only turns a hang into a failure, it asserts no timing.
"""

from __future__ import annotations

import asyncio
import math
from collections import defaultdict
from collections.abc import Awaitable, Callable
from contextlib import nullcontext
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_format.records import ResultErrorOutcome, ResultOutcome, StartErrorOutcome
from cassette_format.write.writer import CassetteWriter
from cassette_provider import (
    CassetteError,
    CassetteFormatError,
    CassetteHandle,
    CassetteRecordedError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    SubagentRun,
    aborted_result,
    install_cassette,
)
from cassette_provider.contract.clock import SYSTEM_CLOCK, Clock
from cassette_provider.install import DEFAULT_DISPOSE_TIMEOUT
from cassette_provider.record.recorder import RecordingProvider
from provider.support_provider import answer, prompt

_GUARD = 10.0
ROOT = SimpleAgent(session_id="root")


class Upstream:
    """A FunctionProvider whose runs (and optionally starts) wait for per-label gates."""

    def __init__(self, *, gate_starts: frozenset[str] = frozenset()) -> None:
        self.entered: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.release: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self._gate_starts = gate_starts

    async def _gate(self, label: str) -> None:
        self.entered[label].set()
        await self.release[label].wait()

    async def run(self, request: StartRequest, _child: SimpleAgent) -> object:
        label = request.label or ""
        if label.startswith("fast"):
            return answer(label)
        await self._gate(label)
        return answer(label)

    async def start(self, request: StartRequest) -> None:
        label = request.label or ""
        if label in self._gate_starts:
            await self._gate("start:" + label)

    def registry(self) -> ProviderRegistry:
        registry = ProviderRegistry()
        registry.register(FunctionProvider("spawn", self.run, start=self.start))
        return registry


def _request(label: str) -> StartRequest:
    return StartRequest(prompt=prompt(label), parent=ROOT, label=label)


async def _start(registry: ProviderRegistry, label: str) -> SubagentRun:
    return await registry.start("cassette", _request(label))


async def _dispose(handle: CassetteHandle) -> None:
    """Dispose under a guard, so a hang fails the test instead of blocking it."""
    async with asyncio.timeout(_GUARD):
        await handle.dispose()


def _recorder(registry: ProviderRegistry) -> RecordingProvider:
    recorder = registry.get("cassette")
    assert isinstance(recorder, RecordingProvider)
    return recorder


Replayed = tuple[str, object]


async def _replay(path: Path, labels: list[str]) -> list[Replayed]:
    """Replay flat calls by label with default settings (assert_consumed on); what each gave."""
    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(path)))
    seen: list[Replayed] = []
    async with asyncio.timeout(_GUARD):
        for label in labels:
            try:
                run = await _start(registry, label)
            except CassetteRecordedError as error:
                seen.append(("start-error", (error.recorded_name, error.code)))
                continue
            try:
                seen.append(("result", await run.result))
            except CassetteRecordedError as error:
                seen.append(("result-error", (error.recorded_name, error.code)))
            await run.dispose()
    await _dispose(handle)
    return seen


def _contiguous(path: Path, count: int) -> None:
    """The file verifies and holds exactly sequences 1..count (WRITE-7, FMT sequence rules)."""
    summary = verify_file(path)
    assert summary["interactions"] == count
    assert [i.sequence for i in load_cassette(path).interactions] == list(range(1, count + 1))


ABORTED = ("AbortError", "ABORTED")


async def test_wait_for_timeout_on_a_started_result_still_ends_as_a_line(tmp_path: Path) -> None:
    """`asyncio.wait_for` cancels the result task mid-await: result-error line (PROV-7, PROV-10)."""
    upstream = Upstream()
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    slow = await _start(registry, "slow")
    await upstream.entered["slow"].wait()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(slow.result, 0)
    assert _recorder(registry).active == 0  # the line landed before wait_for returned
    fast = await _start(registry, "fast")
    assert await fast.result == answer("fast")
    await fast.dispose()
    await slow.dispose()
    await _dispose(handle)
    _contiguous(path, 2)
    first = load_cassette(path).interactions[0].outcome
    assert isinstance(first, ResultErrorOutcome)
    assert (first.error.name, first.error.code) == ABORTED
    assert await _replay(path, ["slow", "fast"]) == [
        ("result-error", ABORTED),
        ("result", answer("fast")),
    ]


async def test_wait_for_zero_cancels_the_result_before_its_first_step(tmp_path: Path) -> None:
    """A result task cancelled before it ever ran still writes its line (PROV-10)."""
    upstream = Upstream()
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    slow = await _start(registry, "slow")
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(slow.result, 0)
    await _dispose(handle)
    _contiguous(path, 1)
    assert await _replay(path, ["slow"]) == [("result-error", ABORTED)]


async def test_caller_task_cancelled_mid_result_reraises_and_records(tmp_path: Path) -> None:
    """The caller's own cancellation propagates; the line is still written (PROV-7)."""
    upstream = Upstream()
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))

    async def caller() -> object:
        run = await _start(registry, "slow")
        return await run.result

    task = asyncio.ensure_future(caller())
    await upstream.entered["slow"].wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert task.cancelled()
    await _dispose(handle)
    _contiguous(path, 1)
    assert await _replay(path, ["slow"]) == [("result-error", ABORTED)]


async def test_caller_task_cancelled_during_upstream_start(tmp_path: Path) -> None:
    """Cancelled inside the upstream's start: a start-error line, published:false (PROV-5)."""
    upstream = Upstream(gate_starts=frozenset({"starting"}))
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    task = asyncio.ensure_future(_start(registry, "starting"))
    await upstream.entered["start:starting"].wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _recorder(registry).active == 0
    fast = await _start(registry, "fast")
    assert await fast.result == answer("fast")
    await _dispose(handle)
    _contiguous(path, 2)
    first = load_cassette(path).interactions[0]
    assert isinstance(first.outcome, StartErrorOutcome)
    assert (first.published, first.local) == (False, False)
    assert await _replay(path, ["starting", "fast"]) == [
        ("start-error", ABORTED),
        ("result", answer("fast")),
    ]


async def test_dispose_timeout_cuts_slow_calls_and_closes(tmp_path: Path) -> None:
    """dispose_timeout cuts a published call and a call still starting (GAP-2, CONF-4)."""
    upstream = Upstream(gate_starts=frozenset({"starting"}))
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path), dispose_timeout=0))
    recorder = _recorder(registry)
    slow = await _start(registry, "slow")
    starting = asyncio.ensure_future(_start(registry, "starting"))
    await upstream.entered["start:starting"].wait()
    with pytest.raises(CassetteError) as timed_out:
        await _dispose(handle)
    assert timed_out.value.code == "DISPOSE_TIMEOUT"
    assert str(timed_out.value).startswith("2 admitted subagent start(s)")
    with pytest.raises(CassetteError) as cut:
        await slow.result
    assert cut.value.code == "DISPOSE_TIMEOUT"
    upstream.release["start:starting"].set()  # the upstream publishes after the cut
    with pytest.raises(CassetteError) as late:
        await starting
    assert late.value.code == "DISPOSE_TIMEOUT"
    assert recorder.active == 0
    _contiguous(path, 2)
    kinds = [type(i.outcome) for i in load_cassette(path).interactions]
    assert kinds == [ResultErrorOutcome, StartErrorOutcome]
    assert await _replay(path, ["slow", "starting"]) == [
        ("result-error", ("CassetteError", "DISPOSE_TIMEOUT")),
        ("start-error", ("CassetteError", "DISPOSE_TIMEOUT")),
    ]


async def test_dispose_times_out_by_default_on_the_injected_clock(tmp_path: Path) -> None:
    """A never-settling child no longer hangs dispose: the default timeout cuts it (issue 26).

    The clock's sleep ends at once, so the default's length is read, not waited for.
    """
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    upstream = Upstream()
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    clock = Clock(now=SYSTEM_CLOCK.now, sleep=sleep)
    handle = install_cassette(registry, RecordConfig(file=str(path), clock=clock))
    never = await _start(registry, "never")
    with pytest.raises(CassetteError) as timed_out:
        await _dispose(handle)
    assert timed_out.value.code == "DISPOSE_TIMEOUT"
    assert slept == [DEFAULT_DISPOSE_TIMEOUT]
    assert math.isfinite(DEFAULT_DISPOSE_TIMEOUT)
    with pytest.raises(CassetteError):
        await never.result
    assert [type(i.outcome) for i in load_cassette(path).interactions] == [ResultErrorOutcome]


async def test_dispose_timeout_none_still_waits_as_the_reference_does(tmp_path: Path) -> None:
    """`dispose_timeout=None` keeps GAP-2's unbounded wait: dispose returns once the call ends."""
    upstream = Upstream()
    registry = upstream.registry()
    handle = install_cassette(
        registry, RecordConfig(file=str(tmp_path / "c.jsonl"), dispose_timeout=None)
    )
    slow = await _start(registry, "slow")
    disposing = asyncio.ensure_future(handle.dispose())
    await upstream.entered["slow"].wait()
    await asyncio.sleep(0)
    assert not disposing.done()
    upstream.release["slow"].set()
    await _dispose(handle)
    assert await slow.result == answer("slow")


async def test_dispose_waits_while_calls_are_active_then_returns(tmp_path: Path) -> None:
    """Handle dispose with active calls returns once each ends: done, disposed, cancelled."""
    upstream = Upstream()
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    recorder = _recorder(registry)
    done, disposed, cancelled = [await _start(registry, label) for label in ("a", "b", "c")]
    for label in ("a", "b", "c"):
        await upstream.entered[label].wait()
    closing = asyncio.ensure_future(_dispose(handle))
    upstream.release["a"].set()
    assert await done.result == answer("a")
    await disposed.dispose()  # the upstream turns its dispose into an aborted result
    assert await disposed.result == aborted_result()
    assert not closing.done()
    assert recorder.active == 1
    pending = cancelled.result
    assert isinstance(pending, asyncio.Future)  # a future underneath, so it can be cancelled
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await cancelled.result
    await closing
    assert recorder.active == 0
    _contiguous(path, 3)
    assert await _replay(path, ["a", "b", "c"]) == [
        ("result", answer("a")),
        ("result", aborted_result()),
        ("result-error", ABORTED),
    ]


def _failing_after(
    monkeypatch: pytest.MonkeyPatch, written: int
) -> Callable[[CassetteWriter, object], Awaitable[object]]:
    """Make `CassetteWriter.append` fail like a full disk after `written` records."""
    original = CassetteWriter.append
    count = 0

    async def append(self: CassetteWriter, body: object) -> object:
        nonlocal count
        count += 1
        if count > written:
            raise CassetteFormatError(f'cannot write cassette "{self.path}"')
        return await original(self, body)  # type: ignore[arg-type]

    monkeypatch.setattr(CassetteWriter, "append", append)
    return append


async def test_failing_writes_neither_hang_dispose_nor_leak_counts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes failing after one record, as on a full disk: errors surface, counts reach 0."""
    _failing_after(monkeypatch, 1)
    upstream = Upstream()
    registry = upstream.registry()
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    recorder = _recorder(registry)
    first = await _start(registry, "fast-1")
    assert await first.result == answer("fast-1")
    second = await _start(registry, "fast-2")
    with pytest.raises(CassetteFormatError, match="cannot write cassette"):
        await second.result  # PROV-7: the write error is raised instead
    slow = await _start(registry, "slow")
    await upstream.entered["slow"].wait()
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(slow.result, 0)  # cancelled, and its write fails too
    with pytest.raises(TypeError):  # PROV-3: a refused request is not counted either
        await registry.start("cassette", StartRequest(prompt=[object()], parent=ROOT))
    assert recorder.active == 0
    for run in (first, second, slow):
        failure = pytest.raises(CassetteFormatError) if run is not first else nullcontext()
        with failure:
            await run.dispose()
    await _dispose(handle)
    _contiguous(path, 1)
    assert isinstance(load_cassette(path).interactions[0].outcome, ResultOutcome)
    assert await _replay(path, ["fast-1"]) == [("result", answer("fast-1"))]
