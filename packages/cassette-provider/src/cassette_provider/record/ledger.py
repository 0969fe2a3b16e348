"""What the calls of one recording share: writer, redaction, tracker, clock, the open calls."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol

from cassette_format.records import RecordedError

from cassette_provider.contract.clock import Clock
from cassette_provider.contract.errors import error_facts
from cassette_provider.contract.sessions import SessionBridge
from cassette_provider.live.redact import Redactor

if TYPE_CHECKING:
    from cassette_format.write.writer import CassetteWriter
    from cassette_topology import TopologyTracker

__all__ = ["Cuttable", "Ledger"]


class Cuttable(Protocol):
    """A call in flight the dispose timeout can end: `cut()` fixes its line, then it settles."""

    def cut(self) -> Awaitable[None]:
        """End the call with a cut line (unless its line is fixed already); await the line."""
        ...


class Ledger:
    """The recording's book: the writer, the redactor, the next sequence and the open calls.

    A call is open from admission until its one line settles (PROV-10 counts these).
    """

    def __init__(
        self,
        writer: CassetteWriter,
        redactor: Redactor,
        tracker: TopologyTracker,
        clock: Clock,
        sessions: SessionBridge,
    ) -> None:
        self.writer = writer
        self.tracker = tracker
        self.redactor = redactor
        self.clock = clock
        self.sessions = sessions
        self._next_sequence = writer.next_sequence
        self._admissions = 0
        self._open: dict[int, Cuttable] = {}
        self._idle = asyncio.Event()
        self._idle.set()

    @property
    def active(self) -> int:
        """Admitted calls whose line has not settled yet."""
        return len(self._open)

    async def when_idle(self) -> None:
        """Wait until every admitted call's line has settled (PROV-10)."""
        await self._idle.wait()

    def open(self, call: Cuttable) -> int:
        """Count an admitted call until its line settles; its admission number."""
        self._admissions += 1
        self._open[self._admissions] = call
        self._idle.clear()
        return self._admissions

    def close(self, admission: int) -> None:
        """The call's line settled."""
        self._open.pop(admission, None)
        if not self._open:
            self._idle.set()

    def take_sequence(self) -> int:
        """The next line's sequence, taken when its outcome is fixed (docs/architecture.md)."""
        sequence = self._next_sequence
        self._next_sequence += 1
        return sequence

    def facts(self, error: BaseException) -> RecordedError:
        """Redacted `{name, message, code?}` of an error (REDACT-7, count discarded)."""
        facts = error_facts(error)
        if not self.redactor.enabled:
            return facts
        redact = self.redactor.redact_text
        code = None if facts.code is None else redact(facts.code)[0]
        return RecordedError(
            name=redact(facts.name)[0], message=redact(facts.message)[0], code=code
        )

    async def cut(self) -> None:
        """Dispose timeout: end every open call with a cut line and wait for all its lines."""
        lines = [call.cut() for call in list(self._open.values())]
        await asyncio.gather(*lines, return_exceptions=True)
