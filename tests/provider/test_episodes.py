"""new_episodes through one provider: replay what matches, record and append what does not.

The upstream marks every answer with a counter, so a replayed answer can only come from the
cassette and a recorded one only from the upstream (issue 14).
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.contract.agent import ParentAgent
from cassette_provider.episodes import install_episodes, is_miss
from cassette_topology.exceptions import CassetteMismatchError


class Upstream:
    """A child runner that counts its live calls; `nested` children start one grandchild."""

    def __init__(self, registry: ProviderRegistry, nested: frozenset[str] = frozenset()) -> None:
        self.calls = 0
        self._registry = registry
        self._nested = nested

    async def __call__(self, request: StartRequest, child: SimpleAgent) -> object:
        self.calls += 1
        if request.label in self._nested:
            await ask(self._registry, child, f"{request.label}-inner")
        return {
            "output": [{"type": "text", "text": f"live {request.label}"}],
            "stopReason": "completed",
        }


async def ask(registry: ProviderRegistry, parent: ParentAgent, label: str) -> str:
    request = StartRequest(
        prompt=[{"type": "text", "text": f"do {label}"}], parent=parent, label=label
    )
    run = await registry.start("cassette", request)
    try:
        result = await run.result
    finally:
        await run.dispose()
    return str(result["output"][0]["text"])


async def fan_out(registry: ProviderRegistry, labels: tuple[str, ...]) -> list[str]:
    parent = SimpleAgent(options={"agent": "planner"})
    return list(await asyncio.gather(*(ask(registry, parent, label) for label in labels)))


def upstream_registry(nested: frozenset[str] = frozenset()) -> tuple[ProviderRegistry, Upstream]:
    registry = ProviderRegistry()
    upstream = Upstream(registry, nested)
    registry.register(FunctionProvider("spawn", upstream))
    return registry, upstream


async def record(path: Path, labels: tuple[str, ...]) -> None:
    registry, _ = upstream_registry()
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    await fan_out(registry, labels)
    await handle.dispose()


def test_new_episodes_replays_matches_and_appends_misses_with_their_nested_calls(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.cassette.jsonl"

    async def scenario() -> tuple[list[str], int, tuple[int, int]]:
        await record(path, ("alpha", "beta"))
        registry, upstream = upstream_registry(nested=frozenset({"gamma"}))
        handle = install_episodes(
            registry,
            replay=ReplayConfig(file=str(path), assert_consumed=False),
            record=RecordConfig(file=str(path), write_mode="append"),
        )
        answers = await fan_out(registry, ("alpha", "beta", "gamma"))
        counts = handle.provider.counts()
        await handle.dispose()
        return answers, upstream.calls, (counts.replayed, counts.recorded)

    answers, live_calls, counts = asyncio.run(scenario())
    assert answers == ["live alpha", "live beta", "live gamma"]
    assert live_calls == 2  # gamma and its grandchild; alpha and beta came from the cassette
    assert counts == (2, 2)
    verify_file(str(path))
    keys = [item.call_key for item in load_cassette(str(path)).interactions]
    assert len(keys) == 4
    assert any(key.startswith("root/gamma-") for key in keys)
    assert any("/gamma-inner-" in key for key in keys)

    async def replay_all() -> int:
        registry, upstream = upstream_registry()
        handle = install_episodes(registry, replay=ReplayConfig(file=str(path)))
        await fan_out(registry, ("alpha", "beta", "gamma"))
        await handle.dispose()  # every interaction consumed or covered (gamma-inner)
        return upstream.calls

    assert asyncio.run(replay_all()) == 0


def test_replay_only_remembers_a_mismatch_the_harness_swallowed(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"

    async def scenario() -> tuple[int, bool]:
        await record(path, ("alpha",))
        registry, upstream = upstream_registry()
        handle = install_episodes(
            registry, replay=ReplayConfig(file=str(path), assert_consumed=False)
        )
        parent = SimpleAgent(options={"agent": "planner"})
        with contextlib.suppress(Exception):  # the harness swallows it
            await ask(registry, parent, "omega")
        await handle.dispose()
        (miss,) = handle.provider.misses
        return upstream.calls, is_miss(miss)

    assert asyncio.run(scenario()) == (0, True)


def test_only_a_mismatch_with_its_diagnostic_is_a_miss() -> None:
    class LookAlike(Exception):
        code = "CASSETTE_MISMATCH"
        diagnostic = object()

    assert not is_miss(CassetteMismatchError("2 interactions were not consumed"))
    assert not is_miss(LookAlike())


def test_one_provider_name_and_a_free_slot_are_required(tmp_path: Path) -> None:
    registry, _ = upstream_registry()
    with pytest.raises(Exception, match="one provider name"):
        install_episodes(registry)
    registry.register(FunctionProvider("cassette", Upstream(registry)))
    with pytest.raises(Exception, match="already registered"):
        install_episodes(registry, record=RecordConfig(file=str(tmp_path / "x.cassette.jsonl")))


def test_an_interrupted_dispose_keeps_the_committed_cassette_of_a_truncating_recording(
    tmp_path: Path,
) -> None:
    path = tmp_path / "c.cassette.jsonl"

    async def scenario() -> None:
        await record(path, ("alpha",))
        before = path.read_bytes()
        registry, _ = upstream_registry()
        handle = install_episodes(
            registry, record=RecordConfig(file=str(path), write_mode="truncate")
        )
        await fan_out(registry, ("beta", "gamma"))
        await handle.dispose(interrupted=True)  # Ctrl-C during an `all` run
        assert path.read_bytes() == before

    asyncio.run(scenario())
