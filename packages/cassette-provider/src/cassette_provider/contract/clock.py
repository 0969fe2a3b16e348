"""Injectable clock (monotonic time, wall time, sleep), so timing is testable without real time."""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["SYSTEM_CLOCK", "Clock", "elapsed_ms"]


def _utc_now() -> datetime:
    """The wall-clock time, in UTC."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Clock:
    """`now()` in monotonic seconds, `sleep(seconds)`, and `wall()` for stamped times (FMT-22)."""

    now: Callable[[], float]
    sleep: Callable[[float], Awaitable[None]]
    wall: Callable[[], datetime] = _utc_now


SYSTEM_CLOCK = Clock(now=time.monotonic, sleep=asyncio.sleep)


def elapsed_ms(clock: Clock, start: float) -> float:
    """Milliseconds since `start`, rounded half-up to 3 decimals, never negative (PROV-4)."""
    raw = (clock.now() - start) * 1000.0
    return max(0.0, math.floor(raw * 1000 + 0.5) / 1000)
