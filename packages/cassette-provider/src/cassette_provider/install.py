"""Configuration and installation: RecordConfig, ReplayConfig, install_cassette (CONF-*)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import math
import os
import threading
import uuid
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Final, Literal, Self

from cassette_format.errors import CassetteError, format_error
from cassette_format.read.replay_index import read_replay_index
from cassette_format.records import CassetteHeader, RequestStorage
from cassette_format.result_edge import or_raise
from cassette_format.write.header import create_header, iso_timestamp
from cassette_format.write.writer import CassetteWriter, WriteMode
from cassette_topology import InteractionMatcher, TopologyTracker
from cassette_topology.exceptions import exception_for, value_or_raise
from cassette_topology.matcher import invalid_matcher_options

from cassette_provider.contract.clock import SYSTEM_CLOCK, Clock
from cassette_provider.contract.errors import (
    INVALID_CONFIG,
    NO_UPSTREAM,
    ProviderProblem,
    pattern_error,
    provider_error,
)
from cassette_provider.contract.loops import run_sync
from cassette_provider.contract.registry import ProviderRegistry
from cassette_provider.live.pattern_names import header_patterns, stored_patterns
from cassette_provider.live.redact import compile_redactor
from cassette_provider.models.context import MODEL_SESSIONS
from cassette_provider.record.recorder import DISPOSE_TIMEOUT, RecordingProvider
from cassette_provider.replay.replayer import (
    ReplayProvider,
    ReplayTally,
    ReplayUse,
    Timing,
    replayable,
)
from cassette_provider.replay.timing import check_recorded_delays

__all__ = [
    "DEFAULT_DISPOSE_TIMEOUT",
    "CassetteHandle",
    "RecordConfig",
    "ReplayConfig",
    "expand_path",
    "install_cassette",
]

DEFAULT_FILE = ".dsh-cassettes/subagents-{timestamp}-{pid}.cassette.jsonl"
#: Seconds `dispose()` waits for admitted runs by default (issue 26; the reference waits
#: forever, GAP-2): a child that never settles is cut and recorded instead of hanging the run.
DEFAULT_DISPOSE_TIMEOUT = 300.0
_JS_SPACE = (
    "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


@dataclass(frozen=True, slots=True)
class RecordConfig:
    """How to record: cassette file, names, write mode, request storage, redaction."""

    file: str = DEFAULT_FILE
    provider: str = "cassette"
    upstream_provider: str = "spawn"
    write_mode: WriteMode = "create"
    request_storage: RequestStorage = "metadata"
    redact_secrets: bool = True
    redaction_patterns: tuple[str, ...] = ()
    #: GAP-2: seconds `dispose()` waits for admitted runs before cutting them (None = forever,
    #: as the reference does); measured with `clock.sleep`.
    dispose_timeout: float | None = DEFAULT_DISPOSE_TIMEOUT
    clock: Clock = field(default=SYSTEM_CLOCK, compare=False)

    def __post_init__(self) -> None:
        """Refuse a bad field here, with INVALID_CONFIG, never later from inside (issue 26)."""
        provider = _normalized_name(self.provider, "provider")
        upstream = _normalized_name(self.upstream_provider, "upstreamProvider")
        _file_path(self.file)
        if provider == upstream:
            raise _invalid("provider and upstreamProvider must be different")
        _one_of(self.write_mode, ("create", "truncate", "append"), "writeMode")
        _one_of(self.request_storage, ("metadata", "full"), "requestStorage")
        _check_flag(self.redact_secrets, "redactSecrets")
        object.__setattr__(self, "redaction_patterns", _patterns(self.redaction_patterns))
        timeout = self.dispose_timeout
        if timeout is not None and not _finite_number(timeout, minimum=0):
            raise _invalid("disposeTimeout must be a non-negative finite number when present")
        _check_clock(self.clock)


@dataclass(frozen=True, slots=True)
class ReplayConfig:
    """How to replay: cassette file, timing and speed, duplicate and redaction policies.

    `strict_subtrees=True` makes `assert_consumed` demand a live call for every interaction,
    including those recorded beneath a child whose recorded result replay delivered (which
    are otherwise covered: counted as consumed, issue 12).
    """

    file: str = DEFAULT_FILE
    provider: str = "cassette"
    timing: Timing = "instant"
    speed: float = 1.0
    duplicate_policy: Literal["reject", "sequence"] = "reject"
    allow_redacted_replay: bool = False
    assert_consumed: bool = True
    strict_subtrees: bool = False
    clock: Clock = field(default=SYSTEM_CLOCK, compare=False)

    def __post_init__(self) -> None:
        """Refuse a bad field here, with INVALID_CONFIG, never later from inside (issue 26)."""
        _normalized_name(self.provider, "provider")
        _file_path(self.file)
        _one_of(self.timing, ("instant", "recorded"), "timing")
        _check_flag(self.assert_consumed, "assertConsumed")
        refused = invalid_matcher_options(  # the matcher's own check: its messages live there
            self.duplicate_policy, self.allow_redacted_replay, self.strict_subtrees
        )
        if refused is not None:
            raise exception_for(refused)
        if not _finite_number(self.speed, minimum=0.001):
            raise _invalid("speed must be a finite number greater than or equal to 0.001")
        _check_clock(self.clock)


def _invalid(message: str) -> CassetteError:
    return provider_error(ProviderProblem(message, INVALID_CONFIG))


def _normalized_name(value: object, field_name: str, *, path: bool = False) -> str:
    """A non-empty string equal to its JavaScript trim, else INVALID_CONFIG (CONF-2)."""
    if not isinstance(value, str) or not value or value.strip(_JS_SPACE) != value:
        what = "path" if path else "string"
        raise _invalid(f"{field_name} must be a non-empty normalized {what}")
    return value


def expand_path(file: str, now: datetime | None = None, pid: int | None = None) -> str:
    """Replace `{timestamp}` and `{pid}`, then make the path absolute (CONF-3)."""
    stamp = iso_timestamp(now or datetime.now(UTC)).replace("-", "").replace(":", "")
    stamp = stamp.replace(".", "", 1)
    expanded = file.replace("{timestamp}", stamp).replace("{pid}", str(pid or os.getpid()))
    return os.path.abspath(expanded)


def _check_flag(value: object, name: str) -> None:
    if not isinstance(value, bool):
        raise _invalid(f"{name} must be a boolean")


def _file_path(value: object) -> str:
    """A normalized path the operating system can name (no NUL character)."""
    path = _normalized_name(value, "file", path=True)
    if "\x00" in path:
        raise _invalid("file must not contain a NUL character")
    return path


def _one_of(value: object, choices: tuple[str, ...], name: str) -> None:
    """One of the literal choices, compared only when it is a string (a list is unhashable)."""
    if not isinstance(value, str) or value not in choices:
        quoted = [f'"{choice}"' for choice in choices]
        listed = (
            ", ".join(quoted[:-1]) + f" or {quoted[-1]}" if len(quoted) > 2 else " or ".join(quoted)
        )
        raise _invalid(f"{name} must be {listed}")


def _finite_number(value: object, *, minimum: float) -> bool:
    """A finite int or float (never a bool) at least `minimum`."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= minimum
    )


def _patterns(value: object) -> tuple[str, ...]:
    """Custom redaction pattern sources as a tuple of strings; one bare string is refused."""
    if isinstance(value, (list, tuple)) and all(type(item) is str for item in value):
        return tuple(value)
    raise _invalid("redactionPatterns must be a list or tuple of strings")


def _check_clock(value: object) -> None:
    if not isinstance(value, Clock):
        raise _invalid("clock must be a cassette_provider Clock")


class CassetteHandle(AbstractAsyncContextManager["CassetteHandle", None]):
    """An installed cassette: `mode`, `file`, `assert_consumed()`, memoized `dispose()`.

    Disposing is loop- and thread-agnostic (issue 27): the first `dispose()` runs on its
    caller's loop and every later one, on any loop or thread, waits for that same outcome.
    Sync harnesses use `with install_cassette(...) as handle:` or `dispose_sync()`.
    """

    def __init__(
        self,
        mode: Literal["record", "replay"],
        file: str,
        dispose: Callable[[], Coroutine[None, None, None]],
        *,
        consumed: Callable[[], None] | None = None,
        first: Callable[[], None] | None = None,
        interrupted: Callable[[], None] | None = None,
        tally: Callable[[], ReplayTally] | None = None,
        use: Callable[[], ReplayUse] | None = None,
    ) -> None:
        self._first = first
        self._use = use
        self._tally = tally
        self._interrupted = interrupted
        self.mode = mode
        self.file = file
        self._consumed = consumed
        self._lock = threading.Lock()
        self._outcome: concurrent.futures.Future[None] | None = None
        self._start_dispose = dispose

    def assert_consumed(self) -> None:
        """Replay: raise CassetteMismatchError if interactions remain (MATCH-4); record: no-op."""
        if self._consumed is not None:
            self._consumed()

    def replay_tally(self) -> ReplayTally | None:
        """Replay: consumed, covered and remaining interactions so far; record: None."""
        return None if self._tally is None else self._tally()

    def replay_use(self) -> ReplayUse | None:
        """Replay: the recorded call keys and those used so far (issue 25); record: None."""
        return None if self._use is None else self._use()

    async def dispose(self) -> None:
        """Dispose once; a failed dispose is raised again on every later call, on any loop."""
        with self._lock:
            outcome, first = self._outcome, self._outcome is None
            if outcome is None:
                outcome = self._outcome = concurrent.futures.Future()
        if first:
            if self._first is not None:
                self._first()  # unregister at once, so no new start is admitted
            task = asyncio.ensure_future(self._start_dispose())
            task.add_done_callback(partial(_publish, outcome))
        await asyncio.shield(asyncio.wrap_future(outcome))

    def dispose_sync(self) -> None:
        """`dispose()` for synchronous code (no event loop running in this thread)."""
        run_sync(self.dispose, "CassetteHandle.dispose_sync()", "await handle.dispose()")

    def mark_interrupted(self) -> None:
        """Make the coming dispose keep a recording's target as it was (partial file kept)."""
        if self._interrupted is not None:
            self._interrupted()

    async def __aexit__(self, *raised: object) -> None:
        """Dispose; a block that raised first marks a recording interrupted (target kept)."""
        if raised[0] is not None:
            self.mark_interrupted()
        await self.dispose()

    def __enter__(self) -> Self:
        """A sync harness's block: `with install_cassette(registry, config) as handle:`."""
        return self

    def __exit__(self, *raised: object) -> None:
        """Dispose from sync code; a block that raised first marks a recording interrupted."""
        if raised[0] is not None:
            self.mark_interrupted()
        self.dispose_sync()


def _publish(outcome: concurrent.futures.Future[None], task: asyncio.Task[None]) -> None:
    """Hand the dispose task's outcome to every caller, whatever loop it waits on."""
    if task.cancelled():
        outcome.set_exception(asyncio.CancelledError())
    elif (error := task.exception()) is not None:
        outcome.set_exception(error)
    else:
        outcome.set_result(None)


async def _idle_within(recorder: RecordingProvider, clock: Clock, timeout: float | None) -> bool:
    """True once every admitted start persisted; False when `clock.sleep(timeout)` ends first."""
    if timeout is None:
        await recorder.when_idle()
        return True
    idle = asyncio.ensure_future(recorder.when_idle())
    timer = asyncio.ensure_future(clock.sleep(timeout))
    try:
        await asyncio.wait((idle, timer), return_when=asyncio.FIRST_COMPLETED)
    finally:
        idle.cancel()
        timer.cancel()
    return idle.done() and not idle.cancelled()


#: What a `create` recording refused because its cassette exists adds (WRITE-3's message stays).
_EXISTS_HINT: Final = (
    'hint: RecordConfig\'s write_mode is "create" (the default), which never replaces a '
    'cassette: pass write_mode="truncate" to record it again (the file is replaced only on a '
    'clean close), write_mode="append" to add calls to it, or ReplayConfig to replay it'
)


def _open_writer(path: str, header: CassetteHeader, mode: WriteMode) -> CassetteWriter:
    """Open the cassette's writer; a refused `create` of an existing file says what records it."""
    try:
        return CassetteWriter.open_blocking(path, header, mode)
    except CassetteError as error:
        if mode == "create" and isinstance(error.__cause__, FileExistsError):
            error.add_note(_EXISTS_HINT)
        raise


def _install_record(registry: ProviderRegistry, config: RecordConfig) -> CassetteHandle:
    name, upstream_name, file = config.provider, config.upstream_provider, config.file
    timeout = config.dispose_timeout  # every field was checked when the config was made
    upstream = registry.get(upstream_name)
    if upstream is None:
        raise provider_error(
            ProviderProblem(
                f'no upstream subagent provider registered for "{upstream_name}"', NO_UPSTREAM
            )
        )
    if registry.get(name) is not None:
        raise _invalid(f'a subagent provider named "{name}" is already registered')
    patterns = tuple(config.redaction_patterns)
    redactor = or_raise(compile_redactor(config.redact_secrets, patterns), pattern_error)
    path = expand_path(file, config.clock.wall())
    header = create_header(
        cassette=name,
        upstream=upstream_name,
        capabilities=upstream.capabilities,
        inherits_parent_context=upstream.inherits_parent_context,
        request_storage=config.request_storage,
        redact_secrets=config.redact_secrets,
        redaction_patterns=stored_patterns(
            patterns, header_patterns(path) if config.write_mode == "append" else None
        ),
        cassette_id=str(uuid.uuid4()),  # FMT-22: a fresh UUIDv4 and the wall-clock time
        created_at=config.clock.wall(),
    )
    writer = _open_writer(path, or_raise(header, format_error), config.write_mode)
    recorder = RecordingProvider(
        name=name,
        upstream=upstream,
        registry=registry,
        writer=writer,
        redactor=redactor,
        storage=config.request_storage,
        tracker=TopologyTracker(writer.existing_interactions),
        sessions=MODEL_SESSIONS,
        clock=config.clock,
    )
    unregister = registry.register(recorder)  # the name was checked free before opening

    async def dispose() -> None:
        try:
            if not await _idle_within(recorder, config.clock, timeout):
                pending = recorder.active
                await recorder.cut()  # every admitted call still ends as a line
                raise provider_error(
                    ProviderProblem(
                        f"{pending} admitted subagent start(s) did not persist within "
                        f"{timeout} s; each was recorded as cut by the dispose timeout",
                        DISPOSE_TIMEOUT,
                    )
                )
        except asyncio.CancelledError:
            writer.mark_interrupted()  # a cancelled dispose (Ctrl-C) commits nothing
            raise
        finally:
            await writer.close()

    return CassetteHandle(
        "record", writer.path, dispose, first=unregister, interrupted=writer.mark_interrupted
    )


def _install_replay(registry: ProviderRegistry, config: ReplayConfig) -> CassetteHandle:
    name, speed = config.provider, config.speed  # checked when the config was made
    path = expand_path(config.file, config.clock.wall())
    # One verifying pass keeps an index; each outcome is read when its call is delivered.
    index = or_raise(
        replayable(or_raise(read_replay_index(path), format_error), path), provider_error
    )
    if config.timing == "recorded":
        or_raise(check_recorded_delays(index, 1.0 / float(speed)), provider_error)
    matcher = value_or_raise(
        InteractionMatcher.build(
            index,
            duplicate_policy=config.duplicate_policy,
            allow_redacted_replay=config.allow_redacted_replay,
            strict_subtrees=config.strict_subtrees,
        )
    )
    provider = ReplayProvider(
        name=name,
        header=index.header,
        matcher=matcher,
        timing=config.timing,
        sessions=MODEL_SESSIONS,
        speed=float(speed),
        clock=config.clock,
    )
    unregister = registry.register(provider)

    async def dispose() -> None:
        if config.assert_consumed:
            provider.assert_consumed()

    return CassetteHandle(
        "replay",
        path,
        dispose,
        consumed=provider.assert_consumed,
        first=unregister,
        tally=provider.tally,
        use=provider.replay_use,
    )


def install_cassette(
    registry: ProviderRegistry, config: RecordConfig | ReplayConfig
) -> CassetteHandle:
    """Install a recording or replaying cassette provider beside the registry's providers."""
    if isinstance(config, RecordConfig):
        return _install_record(registry, config)
    if isinstance(config, ReplayConfig):
        return _install_replay(registry, config)
    raise _invalid("config must be a RecordConfig or a ReplayConfig")
