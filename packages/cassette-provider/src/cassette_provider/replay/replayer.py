"""The replay provider: each start consumes exactly its recorded interaction (REPLAY-*)."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Sized
from dataclasses import dataclass
from typing import Final, Literal, TypeVar, cast

from cassette_format.records import (
    CassetteHeader,
    CassetteInteraction,
    RecordedError,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
)
from cassette_format.records.frozen_json import shared_data
from cassette_format.result_edge import or_raise
from cassette_topology import InteractionMatcher, live_call
from cassette_topology.exceptions import value_or_raise
from returns.functions import identity
from returns.result import Failure, Result, Success

from cassette_provider.contract.abort import ABORTED, AbortController, AbortSignal
from cassette_provider.contract.clock import SYSTEM_CLOCK, Clock
from cassette_provider.contract.errors import (
    CassetteRecordedError,
    ProviderProblem,
    recorded_error,
)
from cassette_provider.contract.function_provider import aborted_result
from cassette_provider.contract.protocol import ProviderIdentity, StartRequest, SubagentResult
from cassette_provider.contract.sessions import SessionBridge
from cassette_provider.live.normalize import (
    live_parent,
    normalize_parent_context_text,
    normalize_request_text,
)
from cassette_provider.replay.timing import checked_delay, scaled, wait_abortable

__all__ = [
    "CASSETTE_EMPTY",
    "CoveredCall",
    "ReplayProvider",
    "ReplayRun",
    "ReplayTally",
    "ReplayUse",
    "Timing",
    "replayable",
]

Timing = Literal["instant", "recorded"]
Recorded = TypeVar("Recorded", bound=Sized)

#: A cassette that verifies but holds no interaction: nothing to replay (issue 12).
CASSETTE_EMPTY: Final = "CASSETTE_EMPTY"


def replayable(cassette: Recorded, path: str) -> Result[Recorded, ProviderProblem]:
    """The cassette if it holds an interaction; a header-only file is refused (CASSETTE_EMPTY).

    A header and no calls is what a recording that made no subagent calls, or one stopped
    before its first call ended, leaves behind; replaying it would only fail later with a
    misleading `parent-not-found`.
    """
    if len(cassette):
        return Success(cassette)
    return Failure(
        ProviderProblem(
            f'cassette "{path}" holds no interactions: the recording made no subagent calls, '
            "or it was interrupted before any call was written; record it again",
            CASSETTE_EMPTY,
        )
    )


@dataclass(frozen=True, slots=True)
class CoveredCall:
    """A covered interaction as reports show it: its keys and label, never its bodies."""

    call_key: str
    parent_key: str
    label: str | None


@dataclass(frozen=True, slots=True)
class ReplayTally:
    """How a replay used its cassette: replayed by live calls, covered beneath them, left."""

    consumed: int
    covered: tuple[CoveredCall, ...]
    remaining: int


@dataclass(frozen=True, slots=True)
class ReplayUse:
    """Which recorded calls a replay used (issue 25): all call keys, and the used ones."""

    keys: frozenset[str]
    used: frozenset[str]


class ReplayProvider(ProviderIdentity):
    """Answers starts from a cassette; no upstream is ever consulted.

    Starts may come from any thread and event loop (issue 27): each match decides and commits
    under one lock, so two siblings racing on two threads never take the same occurrence.
    """

    def __init__(
        self,
        *,
        name: str,
        header: CassetteHeader,
        matcher: InteractionMatcher,
        timing: Timing = "instant",
        sessions: SessionBridge,
        speed: float = 1.0,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        facts = header.provider
        self._sessions = sessions
        self._name = name
        self._capabilities = facts.capabilities
        self._inherits = facts.inherits_parent_context
        self._matcher = matcher
        self._owned = matcher.delivers_copies
        self._matching = threading.Lock()
        self._scale = 0.0 if timing == "instant" else 1.0 / speed
        self._clock = clock

    @property
    def matcher(self) -> InteractionMatcher:
        """The matcher (for `assert_consumed`)."""
        return self._matcher

    def tally(self) -> ReplayTally:
        """Consumed, covered and remaining interactions so far (metadata only)."""
        matcher = self._matcher
        with self._matching:
            covered_items = matcher.covered()
            consumed, remaining = matcher.consumed_count, matcher.remaining_count
        covered = tuple(
            CoveredCall(item.call_key, item.parent_key, item.label) for item in covered_items
        )
        return ReplayTally(consumed, covered, remaining)

    def assert_consumed(self) -> None:
        """Raise CassetteMismatchError if interactions remain (MATCH-4)."""
        with self._matching:
            value_or_raise(self._matcher.assert_consumed())

    def replay_use(self) -> ReplayUse:
        """Every recorded call key, and those replayed or covered beneath a replayed call."""
        return ReplayUse(self._matcher.call_keys(), self._matcher.used_call_keys())

    async def start(self, request: StartRequest) -> ReplayRun:
        """Match and consume, wait the scaled start latency, then publish or raise."""
        # One walk each checks and proves the canonical text to hash (issue 24); the context,
        # only hashed, is not copied.
        normalized, request_text = or_raise(normalize_request_text(request), identity)
        context, context_text = or_raise(
            normalize_parent_context_text(request.parent, self._inherits, copied=False), identity
        )
        call = value_or_raise(
            live_call(
                live_parent(request.parent),
                normalized,
                context,
                request_text=request_text,
                context_text=context_text,
            )
        )
        with self._matching:
            matched = self._matcher.match(call)
        interaction = value_or_raise(matched)
        self._sessions.child_replayed(interaction.call_key)  # its model session's script is covered
        timing = interaction.timing
        start_delay = scaled(timing.start_latency_ms, self._scale)
        aborted = await wait_abortable(start_delay, request.signal, self._clock)
        outcome = interaction.outcome
        if isinstance(outcome, StartErrorOutcome):
            raise recorded_error(outcome.error)
        if aborted:
            raise recorded_error(
                RecordedError(
                    "AbortError", "cassette replay aborted before subagent publication", ABORTED
                )
            )
        remaining = scaled(max(0.0, timing.duration_ms - timing.start_latency_ms), self._scale)
        checked_delay(remaining)
        return ReplayRun(interaction, request.signal, remaining, self._clock, owned=self._owned)


class ReplayRun:
    """A replayed run: no local agent; its result waits the remaining scaled duration.

    With nothing left to wait (instant timing, the common case) the result settles as the
    run is made, as the reference's does (REPLAY-3: an already-aborted signal still means
    aborted; a zero delay elapses at once): no task, no run signal, no dispose plumbing.
    The id's uuid4 is drawn when the id is first read.
    """

    __slots__ = ("_disposer", "_id", "_interaction", "_owned", "_result")

    def __init__(
        self,
        interaction: CassetteInteraction,
        signal: AbortSignal | None,
        remaining_ms: float,
        clock: Clock,
        *,
        owned: bool = False,
    ) -> None:
        self._id: str | None = None
        self._interaction = interaction
        self._owned = owned
        self._disposer: AbortController | None = None
        self._result: asyncio.Future[SubagentResult]
        if remaining_ms == 0:
            self._result = _settled(interaction, owned, signal is not None and signal.aborted)
            return
        disposer = self._disposer = AbortController()
        sources = (disposer.signal,) if signal is None else (signal, disposer.signal)
        self._result = asyncio.ensure_future(
            self._drive(remaining_ms, AbortSignal.any(sources), clock)
        )
        self._result.add_done_callback(_retrieve)

    @property
    def id(self) -> str:
        """`cassette-<sequence>-<hex12>-<uuid4>`."""
        if self._id is None:
            interaction = self._interaction
            digest = interaction.request_fingerprint.removeprefix("sha256:")[:12]
            self._id = f"cassette-{interaction.sequence}-{digest}-{uuid.uuid4()}"
        return self._id

    @property
    def local_agent(self) -> None:
        """Replayed runs have no local agent (TOPO-6)."""
        return None

    @property
    def result(self) -> asyncio.Future[SubagentResult]:
        """The recorded result, the recorded error, or aborted."""
        return self._result

    async def _drive(
        self, remaining_ms: float, signal: AbortSignal, clock: Clock
    ) -> SubagentResult:
        """Wait the remaining delay on the run signal, then deliver (aborted when it fired)."""
        if await wait_abortable(remaining_ms, signal, clock):
            return aborted_result()
        return _delivered(self._interaction.outcome, self._owned)

    async def dispose(self) -> None:
        """Abort the run signal, wait for the result; never raises (REPLAY-5)."""
        if self._disposer is not None:
            self._disposer.abort()
        if not self._result.done():  # issue 24: a result already delivered needs no wait
            await asyncio.wait([self._result])


def _delivered(outcome: object, owned: bool) -> SubagentResult:
    """The recorded result as the caller's own plain value, or its recorded error (REPLAY-6).

    An `owned` result was decoded for this delivery alone (the lazy reader reads the line
    again), so its container is handed over as it is; otherwise it is thawed into a copy.
    """
    if isinstance(outcome, ResultOutcome):
        payload = outcome.result
        return cast(SubagentResult, shared_data(payload) if owned else payload.thaw())
    if isinstance(outcome, ResultErrorOutcome):
        raise recorded_error(outcome.error)
    raise recorded_error(RecordedError("CassetteError", "invalid recorded result error"))


def _settled(
    interaction: CassetteInteraction, owned: bool, aborted: bool
) -> asyncio.Future[SubagentResult]:
    """A result already settled: aborted, the recorded result, or the recorded error."""
    future: asyncio.Future[SubagentResult] = asyncio.get_running_loop().create_future()
    try:
        future.set_result(aborted_result() if aborted else _delivered(interaction.outcome, owned))
    except CassetteRecordedError as error:
        future.set_exception(error)
        future.exception()  # retrieved: an unawaited recorded error is not a loop warning
    return future


def _retrieve(task: asyncio.Task[SubagentResult]) -> None:
    """Mark a delayed result's error retrieved, so one nobody awaits logs no warning."""
    if not task.cancelled():
        task.exception()
