"""The fan-out scenario of the adapter tests: three children, their answers, their latencies."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

CHILDREN = ("alpha", "beta", "gamma")
"""Child agent names, in the order the parent starts them."""

SLOW_ALPHA = ("gamma", "beta", "alpha")
"""Arrival order when alpha is the slowest child and gamma the fastest."""

SLOW_GAMMA = ("alpha", "beta", "gamma")
"""The same latencies reversed: gamma is now the slowest child."""


def task_for(child: str) -> str:
    """The prompt the parent sends to one child."""
    return f"Summarise the {child} report in one line."


def answer_for(child: str) -> str:
    """The answer the child's own model gives; call-order doubles hand these out in order."""
    return f"{child} report: all checks passed"


class Turnstile:
    """Lets concurrent children through one at a time in a fixed order: latencies without sleeping.

    Each child runs as its own task; a child reaches its model (or the cassette) only after every
    child that is "faster" in the configured order has finished, so completion order is exactly the
    configured order on every run, whatever the machine load.
    """

    def __init__(self, order: Sequence[str]) -> None:
        self._order = tuple(order)
        self._next = 0
        self._changed = asyncio.Condition()
        self.passed: list[str] = []

    @asynccontextmanager
    async def turn(self, name: str) -> AsyncIterator[None]:
        """Wait for this child's turn, run the body, then let the next child through."""
        if name not in self._order:
            raise ValueError(f"{name!r} has no place in this turnstile's order")
        async with self._changed:
            await self._changed.wait_for(
                lambda: self._next < len(self._order) and self._order[self._next] == name
            )
        try:
            yield
        finally:
            async with self._changed:
                self.passed.append(name)
                self._next += 1
                self._changed.notify_all()
