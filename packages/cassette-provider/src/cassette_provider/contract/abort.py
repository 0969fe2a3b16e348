"""Abort signals for subagent runs: a controller that aborts once, a signal callers can watch."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from typing import Any, Final

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
    """Read-only view of an abort: `aborted`, `reason`, listeners, and `await signal`."""

    __slots__ = ("_aborted", "_listeners", "_reason", "_waiters")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: object = None
        self._listeners: list[Listener] = []
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
        if self._aborted:
            listener(self._reason)
            return lambda: None
        self._listeners.append(listener)

        def remove() -> None:
            if listener in self._listeners:
                self._listeners.remove(listener)

        return remove

    async def wait(self) -> object:
        """Wait until aborted and return the reason."""
        if self._aborted:
            return self._reason
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            return await future
        finally:
            if future in self._waiters:
                self._waiters.remove(future)

    def __await__(self) -> Generator[Any, None, object]:
        """`await signal` waits for the abort and returns the reason."""
        return self.wait().__await__()

    def _abort(self, reason: object) -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = AbortError() if reason is None else reason
        listeners, self._listeners = self._listeners, []
        waiters, self._waiters = self._waiters, []
        for future in waiters:
            if not future.done():
                future.set_result(self._reason)
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
