"""Waiting and waking across threads and event loops (issue 27).

A harness may start children from several threads, each with its own event loop (a
`ThreadPoolExecutor` whose workers call `asyncio.run`, LangGraph's sync `invoke` with `Send`
fan-out), or from `asyncio.run` called several times in sequence. An asyncio future or event
belongs to one loop and is not thread-safe, so shared state never holds one for longer than a
wait: a waiter registers a future of its own running loop, and whoever wakes it (any thread)
settles it on that loop with `call_soon_threadsafe`. A callback registered from a loop runs on
that loop; one registered where no loop runs is called on the waking thread.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from cassette_provider.contract.errors import INVALID_CONFIG, ProviderProblem, provider_error

__all__ = ["IdleGate", "Latch", "OwnedCallback", "call_on", "owning_loop", "run_sync", "wake"]

T = TypeVar("T")


def owning_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def call_on(loop: asyncio.AbstractEventLoop | None, callback: Callable[[], object]) -> None:
    """Call `callback` on `loop`: now when it is this thread's loop (or None), else scheduled.

    A loop already closed has nobody left to wake, so the call is dropped there.
    """
    if loop is None or loop is owning_loop():
        callback()
        return
    try:
        loop.call_soon_threadsafe(callback)
    except RuntimeError:  # closed: its waiters are gone with it
        return


def wake(future: asyncio.Future[T], value: T) -> None:
    """Settle `future` with `value` on its own loop, from any thread (unless already done)."""

    def settle() -> None:
        if not future.done():
            future.set_result(value)

    call_on(future.get_loop(), settle)


class OwnedCallback:
    """A callback that runs on the loop that registered it (or at once, registered loop-less)."""

    __slots__ = ("_callback", "_loop")

    def __init__(self, callback: Callable[[object], None]) -> None:
        self._callback = callback
        self._loop = owning_loop()

    @property
    def callback(self) -> Callable[[object], None]:
        """The wrapped callback (to find it again for removal)."""
        return self._callback

    def __call__(self, value: object) -> None:
        """Run the callback with `value` on its owner loop."""
        callback = self._callback
        call_on(self._loop, lambda: callback(value))


class Latch:
    """A one-shot event any thread may set and any loop may `await wait()` on."""

    __slots__ = ("_lock", "_set", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._waiters: list[asyncio.Future[None]] = []

    def is_set(self) -> bool:
        """Whether the latch was set."""
        return self._set

    def set(self) -> None:
        """Set the latch (once) and wake every waiter on its own loop."""
        with self._lock:
            if self._set:
                return
            self._set = True
            waiters = list(self._waiters)
            self._waiters.clear()  # the same list: a waiter holds it
        for waiter in waiters:
            wake(waiter, None)

    async def wait(self) -> None:
        """Return once the latch is set (at once when it is)."""
        await _wait_unless(self._lock, lambda: self._set, self._waiters)


async def _wait_unless(
    lock: threading.Lock, done: Callable[[], bool], waiters: list[asyncio.Future[None]]
) -> None:
    """Wait on a future of this loop, registered under `lock` unless `done()` already."""
    loop = asyncio.get_running_loop()
    with lock:
        if done():
            return
        waiter: asyncio.Future[None] = loop.create_future()
        waiters.append(waiter)
    try:
        await waiter
    finally:
        with lock:
            if waiter in waiters:
                waiters.remove(waiter)


class IdleGate:
    """Counts work in flight from any thread; `await wait()` on any loop until none is left."""

    __slots__ = ("_active", "_lock", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._active = 0
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def active(self) -> int:
        """Work admitted and not yet finished."""
        return self._active

    def enter(self) -> None:
        """One more piece of work is in flight."""
        with self._lock:
            self._active += 1

    def leave(self) -> None:
        """One piece of work finished; the last one wakes every waiter, on its own loop."""
        with self._lock:
            self._active -= 1
            if self._active:
                return
            waiters = list(self._waiters)
            self._waiters.clear()  # the same list: a waiter holds it
        for waiter in waiters:
            wake(waiter, None)

    async def wait(self) -> None:
        """Return once nothing is in flight (at once when nothing is)."""
        await _wait_unless(self._lock, lambda: self._active == 0, self._waiters)


def run_sync(
    make: Callable[[], Coroutine[Any, Any, T] | Awaitable[T]], what: str, instead: str
) -> T:
    """Run a coroutine to completion from synchronous code, on a fresh loop of this thread.

    Called where an event loop already runs in this thread, it would have to block that
    loop; it refuses instead (INVALID_CONFIG) and names the awaitable to use there.
    """
    if owning_loop() is not None:
        raise provider_error(
            ProviderProblem(
                f"{what} was called where an event loop is running, which it would block; "
                f"use {instead} there",
                INVALID_CONFIG,
            )
        )

    async def main() -> T:
        return await make()

    return asyncio.run(main())
