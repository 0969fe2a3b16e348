"""Abort signals for subagent runs: a controller that aborts once, a signal callers can watch."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Generator
from functools import partial
from typing import Any, Final

from cassette_provider.contract.loops import OwnedCallback, wake

__all__ = ["ABORTED", "AbortController", "AbortError", "AbortSignal", "CancelledRunError"]

Listener = Callable[[object], None]

#: The code of an aborted start or run, as replay raises it (REPLAY-4).
ABORTED: Final = "ABORTED"


class AbortError(Exception):
    """The default abort reason, named like the DOM error the reference records."""

    def __init__(self, message: str = "This operation was aborted") -> None:
        super().__init__(message)
        self.name = "AbortError"


class CancelledRunError(AbortError):
    """What a recorded call cancelled before its outcome records: abort-shaped, code ABORTED."""

    def __init__(self, message: str = "subagent call was cancelled before its outcome") -> None:
        super().__init__(message)
        self.code = ABORTED


class AbortSignal:
    """Read-only view of an abort: `aborted`, `reason`, listeners, and `await signal`.

    Thread- and loop-agnostic (issue 27): any thread may abort; a listener runs on the event
    loop that added it (at once when that is the aborting thread's loop, or when it was added
    where no loop ran), and `wait()` wakes on the waiter's own loop.
    """

    __slots__ = ("_aborted", "_listeners", "_lock", "_reason", "_waiters")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._aborted = False
        self._reason: object = None
        self._listeners: list[OwnedCallback] = []
        self._waiters: list[asyncio.Future[object]] = []

    @property
    def aborted(self) -> bool:
        """Whether the signal has been aborted."""
        return self._aborted

    @property
    def reason(self) -> object:
        """The abort reason (None until aborted)."""
        return self._reason

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(reason)` once on abort (at once if already aborted); returns a remover."""
        owned = OwnedCallback(listener)
        with self._lock:
            if not self._aborted:
                self._listeners.append(owned)
                return partial(self._remove, owned)
        listener(self._reason)
        return _nothing

    def _remove(self, owned: OwnedCallback) -> None:
        with self._lock:
            if owned in self._listeners:
                self._listeners.remove(owned)

    async def wait(self) -> object:
        """Wait until aborted and return the reason."""
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        with self._lock:
            if self._aborted:
                return self._reason
            self._waiters.append(future)
        try:
            return await future
        finally:
            with self._lock:
                if future in self._waiters:
                    self._waiters.remove(future)

    def __await__(self) -> Generator[Any, None, object]:
        """`await signal` waits for the abort and returns the reason."""
        return self.wait().__await__()

    def _abort(self, reason: object) -> None:
        with self._lock:
            if self._aborted:
                return
            self._reason = AbortError() if reason is None else reason
            self._aborted = True
            listeners, self._listeners = self._listeners, []
            waiters, self._waiters = self._waiters, []
        for future in waiters:
            wake(future, self._reason)
        for listener in listeners:
            listener(self._reason)

    @staticmethod
    def any(signals: tuple[AbortSignal, ...]) -> AbortSignal:
        """A signal that aborts when the first of `signals` does, with its reason."""
        controller = AbortController()
        for signal in signals:
            signal.add_listener(controller.abort)
            if controller.signal.aborted:
                break
        return controller.signal


def _nothing() -> None:
    """Nothing to remove: the listener was called at once."""


class AbortController:
    """Owns one AbortSignal and aborts it at most once."""

    __slots__ = ("_signal",)

    def __init__(self) -> None:
        self._signal = AbortSignal()

    @property
    def signal(self) -> AbortSignal:
        """The signal this controller aborts."""
        return self._signal

    def abort(self, reason: object = None) -> None:
        """Abort the signal (first call wins); the reason defaults to an AbortError."""
        self._signal._abort(reason)
