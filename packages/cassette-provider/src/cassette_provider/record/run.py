"""One recorded call, start to line: the recorder's one state machine (PROV-4..PROV-9).

    STARTING --upstream started--> RUNNING --outcome fixed--> WRITING --line written--> SETTLED
    STARTING --start failed, cut---------------------------> WRITING

Every admitted call ends as exactly one line: the first outcome fixed wins (`_claim`), its
write runs at once (or in its own task where the writer waits) so no cancellation can drop
it, and the line's settling is the "persisted" signal that the result, `dispose()` and the
dispose timeout wait for.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import Awaitable, Callable
from typing import Final, cast

from cassette_format.errors import CassetteError, format_error
from cassette_format.problem import FormatProblem
from cassette_format.records import (
    CassetteInteraction,
    InteractionBody,
    Outcome,
    RequestView,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
)
from cassette_format.records.frozen_json import adopt_canonical, adopt_object
from cassette_format.rules.interaction import check_result
from cassette_format.write.header import iso_timestamp
from cassette_topology import ReservedCall
from cassette_topology.errors import TopologyError
from cassette_topology.exceptions import exception_for
from returns.result import Failure, Result, Success

from cassette_provider.contract.abort import AbortSignal, CancelledRunError
from cassette_provider.contract.agent import ParentAgent
from cassette_provider.contract.clock import elapsed_ms
from cassette_provider.contract.eager import start_eagerly
from cassette_provider.contract.errors import ProviderProblem, provider_error
from cassette_provider.contract.protocol import (
    StartRequest,
    SubagentProvider,
    SubagentResult,
    SubagentRun,
)
from cassette_provider.live.snapshot import Strings, canonical_snapshot
from cassette_provider.record.ledger import Ledger

__all__ = ["DISPOSE_TIMEOUT", "RecordedRun"]

DISPOSE_TIMEOUT = "DISPOSE_TIMEOUT"
_RESULT_LOSSY = "subagent cassette result is not lossless plain JSON"
#: How the format's rules name a result they refuse before it is written.
_RESULT: Final = "subagent cassette result"
_WRITE_CANCELLED = "cassette interaction write was cancelled"
_CUT = "subagent call was cut by the cassette dispose timeout before its outcome"


_Unwatch = Callable[[], None]


def _unwatched() -> None:
    """No signal listener to remove."""


def _storable(
    redacted: tuple[dict[str, object], int],
) -> Result[tuple[dict[str, object], int], CassetteError]:
    """The redacted result, or why the cassette cannot hold it (FMT-13)."""
    return check_result(redacted[0], _RESULT).map(lambda _: redacted).alt(format_error)


async def _failure_of(awaitable: Awaitable[object]) -> BaseException | None:
    """What awaiting `awaitable` raised, as `gather(return_exceptions=True)` returns it."""
    try:
        await awaitable
    except (Exception, asyncio.CancelledError) as error:
        return error
    return None


def _failure_of_line(line: asyncio.Future[None]) -> BaseException | None:
    """What a settled line's future holds instead of a value, if anything."""
    return asyncio.CancelledError() if line.cancelled() else line.exception()


class Phase(enum.Enum):
    """Where a recorded call stands."""

    STARTING = "starting"  # admitted; the upstream start is under way
    RUNNING = "running"  # published; the upstream result is awaited
    WRITING = "writing"  # its outcome is fixed; its one line is being written
    SETTLED = "settled"  # its line is written, or its write failed


#: The phases in which a call's outcome is not fixed yet.
_UNFIXED: Final = frozenset({Phase.STARTING, Phase.RUNNING})


class RecordedRun:
    """The caller's run (upstream id and local agent) and the one line its call ends as.

    Built at admission; `launch` starts the upstream and hands the run to the caller once it
    is published. Its result is the unredacted snapshot, delivered once its line is written.
    """

    def __init__(
        self, ledger: Ledger, reserved: ReservedCall, view: RequestView, signal: AbortSignal | None
    ) -> None:
        clock = ledger.clock
        self._ledger = ledger
        self._reserved = reserved
        self._view = view
        self._phase = Phase.STARTING
        self._start = clock.now()
        self._started_at = iso_timestamp(clock.wall())
        self._start_latency_ms: float | None = None
        self._aborted_at_ms: float | None = None
        self._dispose_at_ms: float | None = None
        self._stop_watching = self._watch(signal)
        self._local = False
        #: Set when the dispose timeout cut the call; whoever waits for its outcome raises it.
        self._cut_error: CassetteError | None = None
        self._line: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._upstream: SubagentRun | None = None
        self._result: asyncio.Task[SubagentResult] | None = None
        self._dispose: asyncio.Future[None] | None = None
        self._admission = ledger.open(self)

    # --- the caller's run ----------------------------------------------------------------

    @property
    def id(self) -> str:
        """The upstream run id."""
        return self._published().id

    @property
    def local_agent(self) -> ParentAgent | None:
        """The upstream's local agent."""
        return self._published().local_agent

    @property
    def result(self) -> asyncio.Task[SubagentResult]:
        """The unredacted result, available once its line is written (PROV-7)."""
        if self._result is None:
            raise RuntimeError("a recorded run is handed out only once published")
        return self._result

    def _published(self) -> SubagentRun:
        if self._upstream is None:
            raise RuntimeError("a recorded run is handed out only once published")
        return self._upstream

    async def dispose(self) -> None:
        """Memoized: note the dispose time, then wait for upstream dispose and the line (PROV-9)."""
        if self._dispose is None:
            if self._phase in _UNFIXED:
                self._dispose_at_ms = self._elapsed()
            self._dispose = start_eagerly(self._dispose_once())  # a task only if it waits
        await asyncio.shield(self._dispose)

    async def _dispose_once(self) -> None:
        run = self._published()
        if self._line.done():  # the usual case (issue 24): only the upstream is left to wait for
            upstream = await _failure_of(run.dispose())
            persisted = _failure_of_line(self._line)
        else:
            upstream, persisted = await asyncio.gather(
                run.dispose(), asyncio.shield(self._line), return_exceptions=True
            )
        local = run.local_agent
        if self._local and local is not None:  # issue 26: no per-call map in a long recording
            self._ledger.tracker.release_local_child(str(local.id), self._reserved.call_key)
        failures = [item for item in (upstream, persisted) if isinstance(item, BaseException)]
        if len(failures) == 2:
            raise ExceptionGroup(
                "upstream disposal and cassette persistence both failed",
                [cast(Exception, item) for item in failures],
            )
        if failures:
            raise failures[0]

    # --- STARTING: the upstream start (PROV-5, PROV-6) -----------------------------------

    async def launch(self, upstream: SubagentProvider, request: StartRequest) -> RecordedRun:
        """Start the upstream with the original request; published, or the start's line."""
        key = self._reserved.call_key
        try:
            with self._ledger.sessions.child_session(key):  # the child's own model session
                run = await upstream.start(request)
        except Exception as error:
            await self._finish(StartErrorOutcome(error=self._ledger.facts(error)))
            raise
        except BaseException:  # cancelled: the line still lands, the cancellation goes on
            with contextlib.suppress(Exception):
                await self._finish(StartErrorOutcome(error=self._ledger.facts(CancelledRunError())))
            raise
        if self._cut_error is not None:  # the dispose timeout cut this start meanwhile
            with contextlib.suppress(Exception):
                await run.dispose()
            await asyncio.shield(self._line)
            raise self._cut_error
        self._start_latency_ms = self._elapsed()
        local = run.local_agent
        if local is not None:
            match self._ledger.tracker.register_local_child(str(local.id), key):
                case Failure(TopologyError() as refused):
                    await self._local_child_failed(run, exception_for(refused))
        self._upstream, self._local, self._phase = run, local is not None, Phase.RUNNING
        self._result = asyncio.ensure_future(self._drive(run))
        self._result.add_done_callback(self._ended)
        return self

    async def _local_child_failed(self, run: SubagentRun, error: Exception) -> None:
        """Dispose the upstream run, always record the start-error, then raise (GAP-15)."""
        outcome = StartErrorOutcome(error=self._ledger.facts(error))
        failures: list[Exception] = [error]
        try:
            await run.dispose()
        except Exception as dispose_error:
            failures.append(dispose_error)
        except BaseException:
            with contextlib.suppress(Exception):
                await self._finish(outcome)
            raise
        await self._finish(outcome)
        if len(failures) > 1:
            raise ExceptionGroup(
                "local child registration and upstream disposal both failed", failures
            )
        raise error

    # --- RUNNING: the upstream result (PROV-7) -------------------------------------------

    async def _drive(self, run: SubagentRun) -> SubagentResult:
        try:
            try:
                value = await run.result
            except asyncio.CancelledError:
                await self._cancelled()
                raise
            except Exception as error:
                await self._finish(self._result_error(error))
                raise
            # The caller's copy, checked lossless once; the same walk proves its
            # canonical text where it can (issue 24).
            strings = Strings()
            match canonical_snapshot(value, strings):
                case Success((live, text)):
                    pass
                case _:
                    lossy = TypeError(_RESULT_LOSSY)
                    await self._finish(self._result_error(lossy))
                    raise lossy
            # The cassette's copy: `live` itself when redaction changes nothing (it is
            # serialized before the caller gets `live`, and dropped with the line), else a
            # redacted copy; adopted, not copied again. Kept as it is, its proved text is
            # what the line holds.
            redactor = self._ledger.redactor
            redacted = redactor.redacted(live, "output", strings).alt(provider_error)
            match redacted.bind(_storable):  # FMT-13 refused here: it ends this call only
                case Success((stored, count)):
                    result = (
                        adopt_canonical(stored, text)
                        if text is not None and stored is live
                        else adopt_object(stored)  # plain JSON
                    )
                    await self._finish(ResultOutcome(result=result, redactions=count))
                    return cast(SubagentResult, live)
                case Failure(refused):
                    await self._finish(self._result_error(refused))
                    raise refused
            raise AssertionError("a Result is a Success or a Failure")  # pragma: no cover
        except BaseException as error:  # any other way out still ends the call as a line
            self._claim(self._result_error(error))
            raise

    def _result_error(self, error: BaseException) -> ResultErrorOutcome:
        return ResultErrorOutcome(error=self._ledger.facts(error))

    async def _cancelled(self) -> None:
        """The result task was cancelled: write its line, then raise the cut error if ours.

        A cancellation by the dispose timeout alone becomes its DISPOSE_TIMEOUT error; any
        other cancellation is re-raised by the caller once the line has landed.
        """
        current = asyncio.current_task()
        if self._cut_error is not None and current is not None and current.uncancel() == 0:
            await asyncio.shield(self._line)
            raise self._cut_error
        self._claim(self._result_error(CancelledRunError()))
        with contextlib.suppress(Exception):
            await asyncio.shield(self._line)

    def _ended(self, task: asyncio.Task[SubagentResult]) -> None:
        """Cancelled before its first step: the call still ends as a line; failures retrieved."""
        if task.cancelled():
            self._claim(self._result_error(CancelledRunError()))
        else:
            task.exception()

    # --- the dispose timeout -------------------------------------------------------------

    def cut(self) -> asyncio.Future[None]:
        """End the call with a DISPOSE_TIMEOUT line unless its outcome is fixed; its line."""
        if self._phase in _UNFIXED:
            error = provider_error(ProviderProblem(_CUT, DISPOSE_TIMEOUT))
            facts = self._ledger.facts(error)
            outcome: Outcome = (
                ResultErrorOutcome(error=facts)
                if self._phase is Phase.RUNNING
                else StartErrorOutcome(error=facts)
            )
            self._cut_error = error
            self._claim(outcome)
            if self._result is not None:
                self._result.cancel()  # wakes the result task, which raises the cut error
        return asyncio.shield(self._line)

    # --- WRITING and SETTLED: the one line (PROV-8) --------------------------------------

    async def _finish(self, outcome: Outcome) -> None:
        """Write the call's one line (if its outcome is still open) and wait for it."""
        self._claim(outcome)
        await asyncio.shield(self._line)

    def _claim(self, outcome: Outcome) -> None:
        """Fix the outcome and start writing its line, unless an outcome is fixed already.

        The write runs at once (`start_eagerly`: the writer's `append` never waits, so no task
        is spent on it); a writer that does wait goes on in its own task. Either way
        cancelling whoever waits for the line never drops it. The sequence is taken here,
        when the outcome is fixed, not at admission: writes reach the file in this order, so
        the file's sequences are 1..N at every moment and a recording killed with calls in
        flight leaves no gap (issue 12).
        """
        if self._phase not in _UNFIXED:
            return
        published = self._phase is Phase.RUNNING
        self._phase = Phase.WRITING
        self._stop_watching()
        reserved = self._reserved
        duration = self._elapsed()
        latency = self._start_latency_ms
        body = InteractionBody(
            sequence=self._ledger.take_sequence(),
            call_key=reserved.call_key,
            parent_key=reserved.parent_key,
            parent_context_fingerprint=reserved.parent_context_fingerprint,
            occurrence=reserved.occurrence,
            request_fingerprint=reserved.request_fingerprint,
            request=self._view,
            timing=Timing(
                started_at=self._started_at,
                start_latency_ms=latency if published and latency is not None else duration,
                duration_ms=duration,
                signal_aborted_at_ms=self._aborted_at_ms,
                dispose_called_at_ms=self._dispose_at_ms,
            ),
            published=published,
            local=self._local,
            outcome=outcome,
        )
        write = start_eagerly(self._ledger.writer.append(body))  # no task when it never waits
        if write.done():
            self._settle(write)  # the line is written: it settles now
        else:
            write.add_done_callback(self._settle)

    def _settle(self, write: asyncio.Future[CassetteInteraction]) -> None:
        """Settle the line with the write's outcome and close the call in the ledger."""
        self._phase = Phase.SETTLED
        if write.cancelled():
            self._line.set_exception(format_error(FormatProblem(_WRITE_CANCELLED)))
        elif (error := write.exception()) is not None:
            self._line.set_exception(error)
        else:
            self._line.set_result(None)
        self._line.exception()  # retrieved: whoever waits still sees it
        self._ledger.close(self._admission)

    # --- the clock (PROV-4) --------------------------------------------------------------

    def _elapsed(self) -> float:
        return elapsed_ms(self._ledger.clock, self._start)

    def _watch(self, signal: AbortSignal | None) -> _Unwatch:
        """Note the first abort of the request signal until the outcome is fixed (0: aborted)."""
        if signal is None:
            return _unwatched
        if signal.aborted:
            self._aborted_at_ms = 0.0
            return _unwatched

        def on_abort(_reason: object) -> None:
            if self._aborted_at_ms is None and self._phase in _UNFIXED:
                self._aborted_at_ms = self._elapsed()

        return signal.add_listener(on_abort)
