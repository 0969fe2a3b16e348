"""The recording provider: wraps the upstream and appends one interaction per start (PROV-*)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final, cast

from cassette_canonical import JsonValue
from cassette_format.errors import CassetteError, CassetteFormatError
from cassette_format.records import (
    CassetteInteraction,
    FullRequest,
    FullRequestView,
    InteractionBody,
    MetadataRequestView,
    Outcome,
    RecordedError,
    RequestStorage,
    RequestView,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
)
from cassette_format.records.frozen_json import freeze_object
from cassette_format.result_edge import or_raise
from cassette_format.rules.interaction import check_full_request, check_metadata, check_result
from cassette_format.write.header import iso_timestamp
from cassette_topology import ReservedCall, TopologyTracker, request_metadata
from cassette_topology.errors import TopologyError
from cassette_topology.exceptions import value_or_raise
from returns.functions import identity
from returns.result import Failure, Result, Success

from cassette_provider.contract.abort import AbortSignal, CancelledRunError
from cassette_provider.contract.agent import ParentAgent
from cassette_provider.contract.clock import SYSTEM_CLOCK, Clock, elapsed_ms
from cassette_provider.contract.errors import INVALID_CONFIG, NO_UPSTREAM, error_facts
from cassette_provider.contract.protocol import (
    ProviderIdentity,
    StartRequest,
    SubagentProvider,
    SubagentResult,
    SubagentRun,
)
from cassette_provider.contract.sessions import SessionBridge
from cassette_provider.live.normalize import (
    live_parent,
    normalize_parent_context,
    normalize_request,
)
from cassette_provider.live.redact import ProtectedFieldError, Redactor
from cassette_provider.live.snapshot import snapshot_object

if TYPE_CHECKING:
    from cassette_format.write.writer import CassetteWriter

    from cassette_provider.contract.registry import ProviderRegistry

__all__ = ["DISPOSE_TIMEOUT", "RecordedRun", "RecordingProvider"]

_RESULT_LOSSY = "subagent cassette result is not lossless plain JSON"
#: How the format's rules name a request or result they refuse before it is written.
_REQUEST: Final = "subagent cassette request"
_RESULT: Final = "subagent cassette result"
DISPOSE_TIMEOUT = "DISPOSE_TIMEOUT"
_CUT = "subagent call was cut by the cassette dispose timeout before its outcome"


def _refused(problem: ProtectedFieldError) -> CassetteError:
    """A redaction pattern that matches a protected content-block field (INVALID_CONFIG)."""
    return CassetteError(str(problem), INVALID_CONFIG)


def _full_view(normalized: Mapping[str, object], redactor: Redactor) -> FullRequestView:
    """The redacted full request view (REDACT-7); protected fields raise INVALID_CONFIG."""
    data = or_raise(snapshot_object(normalized), identity)  # normalized is lossless already
    _, count = or_raise(redactor.redact(data, "prompt"), _refused)  # redacts `data` in place
    or_raise(check_full_request(data, _REQUEST), identity)  # FMT-11 refused here, not by the writer
    raw_filter = data.get("toolFilter")
    tool_filter = None
    if isinstance(raw_filter, dict):
        allow, deny = raw_filter.get("allow"), raw_filter.get("deny")
        tool_filter = ToolFilter(
            allow=tuple(allow) if isinstance(allow, list) else None,
            deny=tuple(deny) if isinstance(deny, list) else None,
        )
    request = FullRequest(
        prompt=cast("list[object]", data["prompt"]),  # type: ignore[arg-type]
        label=cast("str | None", data.get("label")),
        agent_options=cast("Mapping[str, object] | None", data.get("agentOptions")),  # type: ignore[arg-type]
        output_schema=cast("Mapping[str, object] | None", data.get("outputSchema")),  # type: ignore[arg-type]
        max_depth=cast("int | None", data.get("maxDepth")),
        tool_filter=tool_filter,
        persona=cast("str | None", data.get("persona")),
    )
    return FullRequestView(value=request, redactions=count)


def _storable(redacted: tuple[object, int]) -> Result[tuple[object, int], CassetteError]:
    """The redacted result, or why the cassette cannot hold it (FMT-13: ends this call only)."""
    return check_result(redacted[0], _RESULT).map(lambda _: redacted)


@dataclass(frozen=True, slots=True)
class _Admitted:
    """A start that passed preprocessing: its identity, request view and admission number."""

    reserved: ReservedCall
    view: RequestView
    #: Counts admissions; the cassette sequence is taken later, when the line is written.
    admission: int


@dataclass(slots=True)
class _Clocked:
    """The timing facts of one start, observed until persistence (PROV-4, PROV-8)."""

    clock: Clock
    start: float
    started_at: str
    start_latency_ms: float | None = None
    aborted_at_ms: float | None = None
    dispose_at_ms: float | None = None
    persisted: bool = False
    remove_listener: object = field(default=None)

    def watch(self, signal: AbortSignal | None) -> None:
        """Note the first abort of the request signal (0 if already aborted)."""
        if signal is None:
            return
        if signal.aborted:
            self.aborted_at_ms = 0.0
            return
        self.remove_listener = signal.add_listener(self._on_abort)

    def _on_abort(self, _reason: object) -> None:
        if self.aborted_at_ms is None and not self.persisted:
            self.aborted_at_ms = elapsed_ms(self.clock, self.start)

    def timing(self, *, published: bool) -> Timing:
        """The timing record, with `durationMs` = elapsed now."""
        duration = elapsed_ms(self.clock, self.start)
        latency = (
            self.start_latency_ms if published and self.start_latency_ms is not None else duration
        )
        return Timing(
            started_at=self.started_at,
            start_latency_ms=latency,
            duration_ms=duration,
            signal_aborted_at_ms=self.aborted_at_ms,
            dispose_called_at_ms=self.dispose_at_ms,
        )

    def stop(self) -> None:
        """Stop observing (the line is being written)."""
        self.persisted = True
        if callable(self.remove_listener):
            self.remove_listener()


@dataclass(slots=True)
class _Call:
    """One admitted call and its single terminal line: every admitted call ends as a line."""

    admitted: _Admitted
    clocked: _Clocked
    #: Settles once the line is written (or its write failed): the "persisted" signal (PROV-8).
    line: asyncio.Future[None]
    published: bool = False
    local: bool = False
    #: Whether the line's outcome is fixed (its write is under way or done).
    claimed: bool = False
    #: Set when the dispose timeout cut the call; its result task raises this.
    cut_error: CassetteError | None = None
    #: How the cut wakes the call's result task (None before publication).
    on_cut: Callable[[], None] | None = None


class RecordingProvider(ProviderIdentity):
    """Registers beside the upstream; forwards each start and records its outcome."""

    def __init__(
        self,
        *,
        name: str,
        upstream: SubagentProvider,
        registry: ProviderRegistry,
        writer: CassetteWriter,
        redactor: Redactor,
        storage: RequestStorage,
        tracker: TopologyTracker,
        sessions: SessionBridge,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._name = name
        self._sessions = sessions
        self._upstream = upstream
        self._upstream_name = upstream.name
        self._registry = registry
        self._writer = writer
        self._redactor = redactor
        self._storage = storage
        self._tracker = tracker
        self._clock = clock
        self._capabilities = upstream.capabilities
        self._inherits = upstream.inherits_parent_context
        self._active = 0
        self._idle = asyncio.Event()
        self._idle.set()
        self._next_sequence = writer.next_sequence
        self._admissions = 0
        #: Admitted calls whose line has not settled yet, by admission number.
        self._unsettled: dict[int, _Call] = {}

    @property
    def redactor(self) -> Redactor:
        """The compiled redaction patterns."""
        return self._redactor

    @property
    def tracker(self) -> TopologyTracker:
        """The topology tracker reserving this recording's identities (read it, do not drive it)."""
        return self._tracker

    @property
    def active(self) -> int:
        """Admitted starts whose line has not settled yet."""
        return self._active

    async def when_idle(self) -> None:
        """Wait until every admitted start has persisted (PROV-10)."""
        await self._idle.wait()

    def _admit(self) -> None:
        if self._registry.get(self._upstream_name) is not self._upstream:
            raise CassetteError(
                f'upstream subagent provider "{self._upstream_name}" is no longer registered',
                NO_UPSTREAM,
            )
        self._active += 1
        self._idle.clear()

    def release(self) -> None:
        """One admitted start is finished."""
        self._active -= 1
        if self._active == 0:
            self._idle.set()

    def _preprocess(self, request: StartRequest) -> _Admitted:
        """Normalize, build the view, reserve the identity (PROV-3); no sequence yet."""
        body = or_raise(normalize_request(request), identity)
        if self._storage == "metadata":
            metadata = value_or_raise(request_metadata(body))
            # Issue 14: the stored label and names are redacted too (the file gets committed).
            stored = self._redactor.redact_metadata(metadata)
            # FMT-11 refused here (a negative maxDepth), not by the writer for every later call
            or_raise(check_metadata(stored.to_json(), _REQUEST), identity)
            view: RequestView = MetadataRequestView(metadata=stored)
        else:
            view = _full_view(body, self._redactor)
        context = or_raise(normalize_parent_context(request.parent, self._inherits), identity)
        label = body.get("label")
        reserved = value_or_raise(
            self._tracker.reserve_normalized(
                live_parent(request.parent),
                body,
                context,
                # Issue 14: the call key's label segment is cut from the redacted label.
                shown_label=self._redactor.redact_text(label)[0]
                if isinstance(label, str) and self._redactor.enabled
                else None,
            )
        )
        self._admissions += 1
        return _Admitted(reserved=reserved, view=view, admission=self._admissions)

    def _open(self, admitted: _Admitted, clocked: _Clocked) -> _Call:
        """Track an admitted call until its line settles."""
        line: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        call = _Call(admitted=admitted, clocked=clocked, line=line)
        self._unsettled[admitted.admission] = call
        return call

    def claim(self, call: _Call, outcome: Outcome, *, published: bool, local: bool) -> None:
        """Fix the call's outcome and start writing its line, unless already claimed.

        The write runs in its own task, so cancelling whoever waits for it never drops
        the line; the active count drops when the line settles (PROV-10). The sequence is
        taken here, not at admission: writes reach the file in claim order, so the file's
        sequences are 1..N at every moment and a recording killed with calls in flight
        leaves no gap (issue 12); sequence therefore counts calls in the order they ended.
        """
        if call.claimed:
            return
        call.claimed = True
        admitted, reserved = call.admitted, call.admitted.reserved
        timing = call.clocked.timing(published=published)
        call.clocked.stop()
        sequence = self._next_sequence
        self._next_sequence += 1
        body = InteractionBody(
            sequence=sequence,
            call_key=reserved.call_key,
            parent_key=reserved.parent_key,
            parent_context_fingerprint=reserved.parent_context_fingerprint,
            occurrence=reserved.occurrence,
            request_fingerprint=reserved.request_fingerprint,
            request=admitted.view,
            timing=timing,
            published=published,
            local=local,
            outcome=outcome,
        )
        write = asyncio.ensure_future(self._writer.append(body))
        write.add_done_callback(lambda task: self._settle(call, task))

    def _settle(self, call: _Call, write: asyncio.Future[CassetteInteraction]) -> None:
        """Settle the call's line with the write's outcome and count the call finished."""
        if write.cancelled():
            call.line.set_exception(CassetteFormatError("cassette interaction write was cancelled"))
        elif (error := write.exception()) is not None:
            call.line.set_exception(error)
        else:
            call.line.set_result(None)
        call.line.exception()  # retrieved: whoever waits still sees it
        self._unsettled.pop(call.admitted.admission, None)
        self.release()

    async def finish(self, call: _Call, outcome: Outcome, *, published: bool, local: bool) -> None:
        """Write the call's one line (if still unclaimed) and wait for it; raises a write error."""
        self.claim(call, outcome, published=published, local=local)
        await asyncio.shield(call.line)

    async def cut(self) -> None:
        """Dispose timeout: end every unclaimed call with a cut line, wait for all lines."""
        calls = list(self._unsettled.values())
        for call in calls:
            if call.claimed:
                continue
            error = CassetteError(_CUT, DISPOSE_TIMEOUT)
            facts = self.error_facts(error)
            outcome: Outcome = (
                ResultErrorOutcome(error=facts)
                if call.published
                else StartErrorOutcome(error=facts)
            )
            call.cut_error = error
            self.claim(call, outcome, published=call.published, local=call.local)
            if call.on_cut is not None:
                call.on_cut()
        await asyncio.gather(*(asyncio.shield(call.line) for call in calls), return_exceptions=True)

    def error_facts(self, error: BaseException) -> RecordedError:
        """Redacted `{name, message, code?}` of an error (REDACT-7, count discarded)."""
        facts = error_facts(error)
        message, _ = (
            self._redactor.redact_text(facts.message)
            if self._redactor.enabled
            else (facts.message, 0)
        )
        name, _ = (
            self._redactor.redact_text(facts.name) if self._redactor.enabled else (facts.name, 0)
        )
        code = facts.code
        if code is not None and self._redactor.enabled:
            code, _ = self._redactor.redact_text(code)
        return RecordedError(name=name, message=message, code=code)

    async def start(self, request: StartRequest) -> SubagentRun:
        """Admit, preprocess, start the upstream with the original request, wrap the run."""
        self._admit()
        try:
            admitted = self._preprocess(request)
        except BaseException:
            self.release()
            raise
        clocked = _Clocked(
            clock=self._clock,
            start=self._clock.now(),
            started_at=iso_timestamp(datetime.now(UTC)),
        )
        clocked.watch(request.signal)
        call = self._open(admitted, clocked)
        try:
            with self._sessions.child_session(admitted.reserved.call_key):  # its own model session
                run = await self._upstream.start(request)
        except Exception as error:
            await self._start_failed(call, error)
            raise
        except BaseException:  # cancelled: the line still lands, the cancellation goes on
            with contextlib.suppress(Exception):
                await self._start_failed(call, CancelledRunError())
            raise
        if call.cut_error is not None:  # the dispose timeout cut this start meanwhile
            with contextlib.suppress(Exception):
                await run.dispose()
            await asyncio.shield(call.line)
            raise call.cut_error
        clocked.start_latency_ms = elapsed_ms(self._clock, clocked.start)
        local = run.local_agent
        if local is not None:
            match self._tracker.register_local_child(str(local.id), admitted.reserved.call_key):
                case Failure(TopologyError() as refused):
                    await self._local_child_failed(call, run, refused.to_exception())
        call.published, call.local = True, local is not None
        return RecordedRun(self, call, run)

    def forget_local_child(self, call: _Call, run: SubagentRun) -> None:
        """A disposed run's local child is dropped from the tracker (issue 26: memory per call)."""
        local = run.local_agent
        if call.local and local is not None:
            self._tracker.release_local_child(str(local.id), call.admitted.reserved.call_key)

    async def _start_failed(self, call: _Call, error: BaseException) -> None:
        """Record a start-error (PROV-5); a failed write is raised instead."""
        await self.finish(
            call,
            StartErrorOutcome(error=self.error_facts(error)),
            published=False,
            local=False,
        )

    async def _local_child_failed(self, call: _Call, run: SubagentRun, error: Exception) -> None:
        """Dispose the upstream run, always record the start-error, then raise (GAP-15)."""
        failures: list[Exception] = [error]
        try:
            await run.dispose()
        except Exception as dispose_error:
            failures.append(dispose_error)
        except BaseException:
            with contextlib.suppress(Exception):
                await self._start_failed(call, error)
            raise
        await self._start_failed(call, error)
        if len(failures) > 1:
            raise ExceptionGroup(
                "local child registration and upstream disposal both failed", failures
            )
        raise error


class RecordedRun:
    """The caller's run: upstream id and local agent; its result is persisted first (PROV-7)."""

    def __init__(self, recorder: RecordingProvider, call: _Call, run: SubagentRun) -> None:
        self._recorder = recorder
        self._call = call
        self._clocked = call.clocked
        self._run = run
        self._result = asyncio.ensure_future(self._drive())
        self._result.add_done_callback(self._ended)
        call.on_cut = self._cut
        self._dispose: asyncio.Task[None] | None = None

    @property
    def id(self) -> str:
        """The upstream run id."""
        return self._run.id

    @property
    def local_agent(self) -> ParentAgent | None:
        """The upstream's local agent."""
        return self._run.local_agent

    @property
    def result(self) -> asyncio.Task[SubagentResult]:
        """The unredacted result, available once its line is written."""
        return self._result

    def _cut(self) -> None:
        """Wake the result task of a call the dispose timeout cut."""
        self._result.cancel()

    def _claim(self, error: BaseException) -> None:
        """Fix a result-error outcome for `error`, unless the line is already claimed."""
        call = self._call
        outcome = ResultErrorOutcome(error=self._recorder.error_facts(error))
        self._recorder.claim(call, outcome, published=True, local=call.local)

    async def _persist(self, outcome: Outcome) -> None:
        call = self._call
        await self._recorder.finish(call, outcome, published=True, local=call.local)

    async def _drive(self) -> SubagentResult:
        try:
            try:
                value = await self._run.result
            except asyncio.CancelledError:
                await self._cancelled()
                raise
            except Exception as error:
                await self._persist(ResultErrorOutcome(error=self._recorder.error_facts(error)))
                raise
            live = snapshot_object(value).value_or(None)
            if live is None:
                lossy = TypeError(_RESULT_LOSSY)
                await self._persist(ResultErrorOutcome(error=self._recorder.error_facts(lossy)))
                raise lossy
            stored = or_raise(snapshot_object(live), identity)  # the copy the cassette keeps
            redacted = self._recorder.redactor.redact(stored, "output").alt(_refused)
            match redacted.bind(_storable):
                case Success((result, count)):
                    frozen = freeze_object(cast("dict[str, JsonValue]", result))
                    await self._persist(ResultOutcome(result=frozen, redactions=count))
                    return cast(SubagentResult, live)
                case Failure(refused):
                    await self._persist(
                        ResultErrorOutcome(error=self._recorder.error_facts(refused))
                    )
                    raise refused
            raise AssertionError("a Result is a Success or a Failure")  # pragma: no cover
        except BaseException as error:  # any other way out still ends the call as a line
            self._claim(error)
            raise

    async def _cancelled(self) -> None:
        """The result task was cancelled: write its line, then raise the cut error if ours.

        A cancellation by the dispose timeout alone becomes its DISPOSE_TIMEOUT error; any
        other cancellation is re-raised by the caller once the line has landed.
        """
        call = self._call
        current = asyncio.current_task()
        if call.cut_error is not None and current is not None and current.uncancel() == 0:
            await asyncio.shield(call.line)
            raise call.cut_error
        self._claim(CancelledRunError())
        with contextlib.suppress(Exception):
            await asyncio.shield(call.line)

    def _ended(self, task: asyncio.Task[SubagentResult]) -> None:
        """Cancelled before its first step: the call still ends as a line; failures retrieved."""
        if task.cancelled():
            self._claim(CancelledRunError())
        else:
            task.exception()

    async def dispose(self) -> None:
        """Memoized: note the dispose time, then wait for upstream dispose and persistence."""
        if self._dispose is None:
            if not self._clocked.persisted:
                self._clocked.dispose_at_ms = elapsed_ms(self._clocked.clock, self._clocked.start)
            self._dispose = asyncio.ensure_future(self._dispose_once())
        await asyncio.shield(self._dispose)

    async def _dispose_once(self) -> None:
        upstream, persisted = await asyncio.gather(
            self._run.dispose(), asyncio.shield(self._call.line), return_exceptions=True
        )
        self._recorder.forget_local_child(self._call, self._run)
        failures = [item for item in (upstream, persisted) if isinstance(item, BaseException)]
        if len(failures) == 2:
            raise ExceptionGroup(
                "upstream disposal and cassette persistence both failed",
                [cast(Exception, item) for item in failures],
            )
        if failures:
            raise failures[0]
