"""Recorded delays past the documented maximum are refused at load (issue 12; REPLAY-2, -3)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_format import load_cassette
from cassette_provider import (
    CassetteError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.replay.timing import MAX_REPLAY_DELAY_MS
from provider.support_provider import FakeClock, answer, prompt


async def _record(path: Path, start_s: float, run_s: float) -> None:
    """One call whose start takes `start_s` and whose run takes `run_s` more (fake clock)."""
    fake = FakeClock()

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        fake.now_s += run_s
        return answer("x")

    def start(_request: StartRequest) -> None:
        fake.now_s += start_s

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, start=start))
    async with install_cassette(registry, RecordConfig(file=str(path), clock=fake.clock())):
        live = await registry.start(
            "cassette", StartRequest(prompt=prompt("p"), parent=SimpleAgent(), label="one")
        )
        await live.result
        await live.dispose()


def _replay(path: Path, **config: object) -> None:
    install_cassette(ProviderRegistry(), ReplayConfig(file=str(path), **config))  # type: ignore[arg-type]


@pytest.mark.parametrize("latency_s", [10 * 86_400.0, 1e297])  # ten days; 1e300 ms
async def test_an_overlong_latency_is_refused_under_recorded_timing(
    tmp_path: Path, latency_s: float
) -> None:
    path = tmp_path / "slow.cassette.jsonl"
    await _record(path, start_s=latency_s, run_s=0.0)
    assert load_cassette(path).interactions[0].timing.start_latency_ms > MAX_REPLAY_DELAY_MS
    with pytest.raises(CassetteError) as refused:
        _replay(path, timing="recorded")
    assert refused.value.code == "INVALID_CONFIG"
    assert "root/one" in str(refused.value)
    assert f"{MAX_REPLAY_DELAY_MS} ms" in str(refused.value)


async def test_the_bound_applies_after_speed_scaling(tmp_path: Path) -> None:
    path = tmp_path / "slow.cassette.jsonl"
    await _record(path, start_s=1.0, run_s=2 * 86_400.0)
    with pytest.raises(CassetteError, match="replay maximum"):
        _replay(path, timing="recorded")
    _replay(path, timing="recorded", speed=4.0)  # half a day: accepted
    _replay(path)  # instant timing never waits: accepted


async def test_a_delay_at_the_maximum_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "edge.cassette.jsonl"
    await _record(path, start_s=0.0, run_s=MAX_REPLAY_DELAY_MS / 1000)
    assert load_cassette(path).interactions[0].timing.duration_ms == MAX_REPLAY_DELAY_MS
    _replay(path, timing="recorded")
