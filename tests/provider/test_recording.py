"""Recording provider lifecycle: admission, failures, abort/dispose, shutdown (PROV-*)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cassette_format import load_cassette
from cassette_format.records import ResultErrorOutcome, ResultOutcome, StartErrorOutcome
from cassette_provider import (
    AbortController,
    CassetteAmbiguityError,
    CassetteError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    aborted_result,
    install_cassette,
)
from cassette_provider.contract.clock import Clock
from cassette_provider.record.recorder import RecordingProvider
from provider.support_provider import FakeClock, answer, prompt


def _registry(run: object) -> ProviderRegistry:
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))  # type: ignore[arg-type]
    return registry


async def test_non_lossless_results_are_recorded_as_result_errors(tmp_path: Path) -> None:  # PROV-7
    values = {
        "big": {
            "output": [{"type": "text", "text": "x", "n": 2**53 + 1}],
            "stopReason": "completed",
        },
        "tuple": {"output": ({"type": "text", "text": "x"},), "stopReason": "completed"},
    }

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return values[request.label or ""]

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    root = SimpleAgent()
    async with install_cassette(registry, RecordConfig(file=str(path))):
        for label in values:
            live = await registry.start(
                "cassette", StartRequest(prompt=prompt(label), parent=root, label=label)
            )
            with pytest.raises(
                TypeError, match="subagent cassette result is not lossless plain JSON"
            ):
                await live.result
            await live.dispose()
    outcomes = [i.outcome for i in load_cassette(path).interactions]
    assert all(isinstance(o, ResultErrorOutcome) for o in outcomes)
    assert {(o.error.name, o.error.message) for o in outcomes} == {  # type: ignore[union-attr]
        ("TypeError", "subagent cassette result is not lossless plain JSON")
    }


async def test_bad_request_and_unknown_parent_do_not_poison_the_tracker(
    tmp_path: Path,
) -> None:  # PROV-3, TOPO-3
    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return answer(str(request.label))

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    root = SimpleAgent(session_id="root")
    async with install_cassette(registry, RecordConfig(file=str(path))):
        with pytest.raises(TypeError):
            await registry.start("cassette", StartRequest(prompt=[object()], parent=root))
        stranger = SimpleAgent(session_id="stranger", origin="subagent")
        with pytest.raises(CassetteAmbiguityError):
            await registry.start("cassette", StartRequest(prompt=prompt("x"), parent=stranger))
        live = await registry.start(
            "cassette", StartRequest(prompt=prompt("ok"), parent=root, label="ok")
        )
        assert await live.result == answer("ok")
        await live.dispose()
    interactions = load_cassette(path).interactions
    assert [(i.sequence, i.occurrence, i.parent_key) for i in interactions] == [(1, 1, "root")]


async def test_upstream_gone_is_no_upstream(tmp_path: Path) -> None:  # PROV-2
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return answer("x")

    registry = ProviderRegistry()
    unregister = registry.register(FunctionProvider("spawn", run))
    handle = install_cassette(registry, RecordConfig(file=str(tmp_path / "c.jsonl")))
    unregister()
    with pytest.raises(CassetteError) as gone:
        await registry.start("cassette", StartRequest(prompt=prompt("x"), parent=SimpleAgent()))
    assert gone.value.code == "NO_UPSTREAM"
    await handle.dispose()
    assert load_cassette(tmp_path / "c.jsonl").interactions == ()


async def test_dispose_waits_for_admitted_runs(tmp_path: Path) -> None:  # PROV-10, CONF-4
    gate = asyncio.Event()

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        await gate.wait()
        return answer("late")

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    live = await registry.start("cassette", StartRequest(prompt=prompt("x"), parent=SimpleAgent()))
    closing = asyncio.ensure_future(handle.dispose())
    await asyncio.sleep(0)  # let the dispose task take its first step
    assert registry.get("cassette") is None  # unregistered first
    assert not closing.done()
    gate.set()
    await closing
    assert await live.result == answer("late")
    assert isinstance(load_cassette(path).interactions[0].outcome, ResultOutcome)


async def test_dispose_timeout_records_the_cut_call(tmp_path: Path) -> None:  # GAP-2, issue 12
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        await asyncio.Event().wait()
        return answer("never")

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path), dispose_timeout=0))
    live = await registry.start("cassette", StartRequest(prompt=prompt("x"), parent=SimpleAgent()))
    with pytest.raises(CassetteError) as timed_out:
        await handle.dispose()
    assert timed_out.value.code == "DISPOSE_TIMEOUT"
    (interaction,) = load_cassette(path).interactions
    assert isinstance(interaction.outcome, ResultErrorOutcome)
    assert interaction.outcome.error.code == "DISPOSE_TIMEOUT"
    with pytest.raises(CassetteError) as cut:
        await live.result
    assert cut.value.code == "DISPOSE_TIMEOUT"
    await live.dispose()


async def test_abort_and_dispose_times_are_recorded(
    tmp_path: Path,
) -> None:  # PROV-4, PROV-8, PROV-9
    fake = FakeClock()
    gate = asyncio.Event()

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        await gate.wait()
        return answer("x")

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    controller = AbortController()
    async with install_cassette(registry, RecordConfig(file=str(path), clock=fake.clock())):
        live = await registry.start(
            "cassette",
            StartRequest(prompt=prompt("x"), parent=SimpleAgent(), signal=controller.signal),
        )
        fake.now_s = 0.25
        controller.abort()
        fake.now_s = 0.5
        await live.dispose()
        await live.dispose()
        assert await live.result == aborted_result()
    timing = load_cassette(path).interactions[0].timing
    assert timing.signal_aborted_at_ms == 250.0
    assert timing.dispose_called_at_ms == 500.0
    assert timing.duration_ms == 500.0


async def test_start_failure_and_already_aborted_signal(tmp_path: Path) -> None:  # PROV-5
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return answer("x")

    def start(_request: StartRequest) -> None:
        raise ValueError("no capacity")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, start=start))
    path = tmp_path / "c.jsonl"
    controller = AbortController()
    controller.abort()
    async with install_cassette(registry, RecordConfig(file=str(path))):
        with pytest.raises(ValueError, match="no capacity"):
            await registry.start(
                "cassette",
                StartRequest(prompt=prompt("x"), parent=SimpleAgent(), signal=controller.signal),
            )
    interaction = load_cassette(path).interactions[0]
    assert isinstance(interaction.outcome, StartErrorOutcome)
    assert (interaction.published, interaction.local) == (False, False)
    assert interaction.timing.signal_aborted_at_ms == 0
    assert interaction.timing.start_latency_ms == interaction.timing.duration_ms


def test_install_validation() -> None:  # CONF-2, CONF-4
    registry = ProviderRegistry()
    with pytest.raises(CassetteError) as same:
        install_cassette(registry, RecordConfig(provider="spawn"))
    assert same.value.code == "INVALID_CONFIG"
    with pytest.raises(CassetteError) as blank:
        install_cassette(registry, RecordConfig(file=" x"))
    assert str(blank.value) == "file must be a non-empty normalized path"
    with pytest.raises(CassetteError) as missing:
        install_cassette(registry, RecordConfig(file="x.jsonl"))
    assert missing.value.code == "NO_UPSTREAM"


async def test_recorded_call_key_matches_the_reference_vector(
    tmp_path: Path,
) -> None:  # TOPO-4, NORM-4, NORM-11
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return answer("x")

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    async with install_cassette(registry, RecordConfig(file=str(path))):
        live = await registry.start(
            "cassette",
            StartRequest(
                prompt=[{"type": "text", "text": "prompt:audit"}],
                parent=SimpleAgent(),
                label="audit",
            ),
        )
        await live.result
        await live.dispose()
    interaction = load_cassette(path).interactions[0]
    assert interaction.call_key == "root/audit-5fbf2955ce0b~1"
    assert interaction.request_fingerprint == (
        "sha256:314d2395805a9d5aafebf28cef1e2cc0e455d7d77db2c2098dbd39f2d559005f"
    )
    assert interaction.request.metadata.prompt_bytes == 39  # type: ignore[union-attr]


async def test_append_mode_continues_sequences_and_occurrences(
    tmp_path: Path,
) -> None:  # TOPO-1, WRITE
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return answer("x")

    path = tmp_path / "c.jsonl"
    for mode, root_id in (("create", "first-root"), ("append", "second-root")):
        registry = _registry(run)
        config = RecordConfig(file=str(path), write_mode=mode)  # type: ignore[arg-type]
        async with install_cassette(registry, config):
            live = await registry.start(
                "cassette",
                StartRequest(prompt=prompt("same"), parent=SimpleAgent(session_id=root_id)),
            )
            await live.result
            await live.dispose()
    interactions = load_cassette(path).interactions
    assert [(i.sequence, i.occurrence, i.parent_key) for i in interactions] == [
        (1, 1, "root"),
        (2, 2, "root"),
    ]


async def test_a_long_recording_keeps_no_map_entry_per_disposed_child(tmp_path: Path) -> None:
    """Issue 26 (memory per call): each disposed run's local child leaves the tracker's map."""

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return answer("x")

    registry = _registry(run)
    handle = install_cassette(registry, RecordConfig(file=str(tmp_path / "c.jsonl")))
    parent = SimpleAgent(session_id="root")
    for index in range(50):
        started = await registry.start(
            "cassette", StartRequest(prompt=prompt(f"t{index}"), parent=parent)
        )
        assert started.local_agent is not None
        await started.result
        await started.dispose()
    recorder = registry.get("cassette")
    assert isinstance(recorder, RecordingProvider)
    assert dict(recorder.tracker.snapshot().parent_keys) == {"root": "root"}
    await handle.dispose()
    assert len(load_cassette(tmp_path / "c.jsonl").interactions) == 50


async def test_stamped_times_come_from_the_injected_clock(tmp_path: Path) -> None:  # PROV-4
    """startedAt, the header's createdAt and the `{timestamp}` path part read `Clock.wall`."""
    moment = datetime(2031, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)
    fake = FakeClock()
    clock = Clock(now=fake.now, sleep=fake.sleep, wall=lambda: moment)
    registry = _registry(lambda _request, _child: answer("x"))
    config = RecordConfig(file=str(tmp_path / "c-{timestamp}.jsonl"), clock=clock)
    async with install_cassette(registry, config) as handle:
        live = await registry.start(
            "cassette", StartRequest(prompt=prompt("x"), parent=SimpleAgent())
        )
        await live.result
        await live.dispose()
    assert handle.file.endswith("c-20310506T070809123Z.jsonl")
    cassette = load_cassette(handle.file)
    assert cassette.header.created_at == "2031-05-06T07:08:09.123Z"
    assert cassette.interactions[0].timing.started_at == "2031-05-06T07:08:09.123Z"


async def _finish(live: Any) -> None:
    try:
        await live.result
    finally:
        await live.dispose()


async def test_a_result_over_the_line_bound_ends_as_an_error_line(tmp_path: Path) -> None:
    # issue 26: the writer never writes what the reader refuses; the other calls commit
    from cassette_format import InteractionRefused, verify_file
    from cassette_format.read.lines import MAX_LINE_BYTES

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        size = MAX_LINE_BYTES + 1 if request.label == "huge" else 10
        return {"output": [{"type": "text", "text": "x" * size}], "stopReason": "completed"}

    registry = _registry(run)
    path = tmp_path / "c.jsonl"
    root = SimpleAgent()
    async with install_cassette(registry, RecordConfig(file=str(path))):
        for label in ("before", "huge", "after"):
            live = await registry.start(
                "cassette", StartRequest(prompt=prompt(label), parent=root, label=label)
            )
            if label == "huge":  # its result or its dispose reports the refused line
                with pytest.raises(InteractionRefused, match="16777216-byte line bound"):
                    await _finish(live)
            else:
                await _finish(live)
    assert verify_file(path)["interactions"] == 3
    outcomes = {i.request.metadata.label: i.outcome for i in load_cassette(path).interactions}  # type: ignore[union-attr]
    assert isinstance(outcomes["before"], ResultOutcome)
    assert isinstance(outcomes["after"], ResultOutcome)
    huge = outcomes["huge"]
    assert isinstance(huge, ResultErrorOutcome)
    assert huge.error.name == "InteractionRefused"
