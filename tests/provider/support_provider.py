"""Shared helpers for provider tests: a controllable clock and small result builders."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from cassette_provider.contract.clock import Clock


def prompt(text: str) -> list[dict[str, object]]:
    """One text prompt block."""
    return [{"type": "text", "text": text}]


def answer(text: str) -> dict[str, object]:
    """A completed result with one text block."""
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


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
