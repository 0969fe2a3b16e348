"""Shared helpers for provider tests: a controllable clock, small result builders, a recording."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.contract.clock import Clock


def prompt(text: str) -> list[dict[str, object]]:
    """One text prompt block."""
    return [{"type": "text", "text": text}]


def answer(text: str) -> dict[str, object]:
    """A completed result with one text block."""
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


def labelled(label: str, parent: SimpleAgent, **fields: object) -> StartRequest:
    """A start request whose prompt and label are both `label`; `fields` are the others."""
    return StartRequest(prompt=prompt(label), parent=parent, label=label, **fields)  # type: ignore[arg-type]


async def run_to_end(registry: ProviderRegistry, request: StartRequest) -> object:
    """Start `request` through the cassette provider, await its result, dispose of the run."""
    run = await registry.start("cassette", request)
    try:
        return await run.result
    finally:
        await run.dispose()


async def record_labels(path: Path, labels: Iterable[str], *, fail: bool = False) -> None:
    """Record one call per label, answered `recorded answer for <label>` (or failing).

    The same label twice records one group twice, with the same outcome.
    """

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        if fail:
            raise RuntimeError("upstream failed")
        return answer(f"recorded answer for {request.label}")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    async with install_cassette(registry, RecordConfig(file=str(path))):
        parent = SimpleAgent()
        for label in labels:
            live = await registry.start(
                "cassette", StartRequest(prompt=prompt(label), parent=parent, label=label)
            )
            with contextlib.suppress(RuntimeError):
                await live.result
            await live.dispose()


@dataclass
class FakeClock:
    """Monotonic time that only moves when a sleep is requested; sleeps are recorded."""

    now_s: float = 0.0
    sleeps: list[float] = field(default_factory=list)
    block: bool = False

    def now(self) -> float:
        return self.now_s

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        if self.block:
            await asyncio.Event().wait()
        self.now_s += seconds

    def clock(self) -> Clock:
        return Clock(now=self.now, sleep=self.sleep)
