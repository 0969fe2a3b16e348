"""Replay delays: scaled recorded timing, waited in bounded, abortable chunks (REPLAY-2, -3)."""

from __future__ import annotations

import asyncio
import math
from typing import Final, Protocol

from returns.result import Failure, Result, Success

from cassette_provider.contract.abort import AbortSignal
from cassette_provider.contract.clock import Clock
from cassette_provider.contract.errors import INVALID_CONFIG, ProviderProblem, provider_error

__all__ = [
    "MAX_CHUNK_MS",
    "MAX_REPLAY_DELAY_MS",
    "check_recorded_delays",
    "checked_delay",
    "wait_abortable",
]

#: The longest single timer, as JavaScript's setTimeout allows.
MAX_CHUNK_MS: Final = 2_147_483_647

#: The longest delay recorded timing may ask of one call (24 hours, after speed scaling);
#: anything longer is refused when the cassette loads, not waited out (issue 12).
MAX_REPLAY_DELAY_MS: Final = 86_400_000


def checked_delay(delay_ms: float) -> float:
    """A delay that is finite and non-negative, else INVALID_CONFIG (REPLAY-3)."""
    if not math.isfinite(delay_ms) or delay_ms < 0:
        raise provider_error(
            ProviderProblem(
                "cassette replay delay must be a non-negative finite number", INVALID_CONFIG
            )
        )
    return delay_ms


def scaled(ms: float, scale: float) -> float:
    """`ms × scale`, refusing a non-finite result (REPLAY-2)."""
    value = ms * scale
    if not math.isfinite(value):
        raise provider_error(
            ProviderProblem(
                "recorded cassette timing cannot be scaled to a finite delay", INVALID_CONFIG
            )
        )
    return value


class RecordedDelays(Protocol):
    """What the delay check reads of a cassette's index (`ReplayIndex`): no outcome."""

    def __len__(self) -> int: ...

    def longest_delay(self, position: int) -> float:
        """The longer of the recorded start latency and duration, in ms."""
        ...

    def call_key(self, position: int) -> str:
        """The interaction's call key."""
        ...

    def sequence(self, position: int) -> int:
        """The interaction's sequence."""
        ...


def check_recorded_delays(recorded: RecordedDelays, scale: float) -> Result[None, ProviderProblem]:
    """Refuse a cassette whose recorded timing, scaled, would wait past MAX_REPLAY_DELAY_MS."""
    for position in range(len(recorded)):
        longest = recorded.longest_delay(position) * scale
        if not math.isfinite(longest) or longest > MAX_REPLAY_DELAY_MS:
            call_key, sequence = recorded.call_key(position), recorded.sequence(position)
            return Failure(
                ProviderProblem(
                    f'interaction "{call_key}" (sequence {sequence}) '
                    f"records a delay past the replay maximum of {MAX_REPLAY_DELAY_MS} ms "
                    'after speed scaling; replay it with timing "instant" or a higher speed',
                    INVALID_CONFIG,
                )
            )
    return Success(None)


async def wait_abortable(delay_ms: float, signal: AbortSignal | None, clock: Clock) -> bool:
    """Wait `delay_ms` in chunks; True when the signal aborted first (or was already aborted)."""
    checked_delay(delay_ms)
    if signal is not None and signal.aborted:
        return True
    remaining = delay_ms
    while remaining > 0:
        chunk = min(remaining, MAX_CHUNK_MS)
        sleeper = asyncio.ensure_future(clock.sleep(chunk / 1000))
        if signal is None:
            await sleeper
        else:
            watcher = asyncio.ensure_future(signal.wait())
            try:
                await asyncio.wait([sleeper, watcher], return_when=asyncio.FIRST_COMPLETED)
            finally:
                watcher.cancel()
                if not sleeper.done():
                    sleeper.cancel()
            if signal.aborted:
                return True
        remaining -= chunk
    return False
