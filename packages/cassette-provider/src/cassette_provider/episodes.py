"""One provider for a test's cassette: replay what matches, record what does not (new_episodes).

`EpisodeProvider` sits in the harness's registry under the cassette's name. A start that the
cassette matches is answered by replay; one it does not match (CASSETTE_MISMATCH with a
diagnostic) is started on the upstream through the recorder, which appends it to the same file.
Children of a recorded run have no recorded parent, so their calls go to the recorder directly.
Without a recorder it only replays and keeps every mismatch it raised, so a test can report a
mismatch that the harness caught and swallowed; without a replay it only records.

Replay and recording are installed on private registries with `install_cassette`, so every
config check of RecordConfig and ReplayConfig applies unchanged.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from cassette_topology.exceptions import CassetteMismatchError

from cassette_provider.contract.errors import INVALID_CONFIG, ProviderProblem, provider_error
from cassette_provider.contract.protocol import (
    ProviderIdentity,
    StartRequest,
    SubagentProvider,
    SubagentRun,
)
from cassette_provider.contract.registry import ProviderRegistry
from cassette_provider.install import CassetteHandle, RecordConfig, ReplayConfig, install_cassette
from cassette_provider.replay.replayer import ReplayTally, ReplayUse

__all__ = ["EpisodeCounts", "EpisodeHandle", "EpisodeProvider", "install_episodes", "is_miss"]


def is_miss(error: BaseException) -> bool:
    """Whether a start failed because the cassette has no matching call (not a config fault).

    A lookup miss is the replayer's `CassetteMismatchError` carrying its DIAG-2 diagnostic;
    without one it is a refusal (ambiguity, duplicates) that recording must not paper over.
    """
    return isinstance(error, CassetteMismatchError) and error.diagnostic is not None


@dataclass(frozen=True, slots=True)
class EpisodeCounts:
    """How a test's starts were answered: from the cassette, or live and recorded."""

    replayed: int
    recorded: int


class EpisodeProvider(ProviderIdentity):
    """Replay first; on a miss, forward to the recorder (if any) or raise and remember it."""

    def __init__(
        self,
        *,
        name: str,
        replay: SubagentProvider | None,
        recorder: SubagentProvider | None,
    ) -> None:
        source = replay if replay is not None else recorder
        if source is None:
            raise provider_error(
                ProviderProblem("an episode provider needs a replay or a recorder", INVALID_CONFIG)
            )
        self._name = name
        self._capabilities = source.capabilities
        self._inherits = source.inherits_parent_context
        self._replay = replay
        self._recorder = recorder
        self._counting = threading.Lock()  # starts come from any thread (issue 27)
        self._recorded_children: set[str] = set()
        self._misses: list[BaseException] = []
        self._replayed = 0
        self._recorded = 0

    @property
    def misses(self) -> tuple[BaseException, ...]:
        """Mismatches raised to the harness (replay only), in the order they happened."""
        return tuple(self._misses)

    def counts(self) -> EpisodeCounts:
        """Starts answered from the cassette and starts recorded live, so far."""
        return EpisodeCounts(self._replayed, self._recorded)

    async def start(self, request: StartRequest) -> SubagentRun:
        """Replay a matching call; record a missing one; raise (and remember) otherwise."""
        replay = self._replay
        if replay is not None and str(request.parent.id) not in self._recorded_children:
            try:
                run = await replay.start(request)
            except Exception as error:
                if self._recorder is None or not is_miss(error):
                    if is_miss(error):
                        with self._counting:
                            self._misses.append(error)
                    raise
            else:
                with self._counting:
                    self._replayed += 1
                return run
        return await self._record(request)

    async def _record(self, request: StartRequest) -> SubagentRun:
        recorder = self._recorder
        if recorder is None:  # unreachable: replay-only providers raise above
            raise provider_error(
                ProviderProblem("no recorder for a call the cassette lacks", INVALID_CONFIG)
            )
        run = await recorder.start(request)
        child = run.local_agent
        with self._counting:
            self._recorded += 1
            if child is not None:
                self._recorded_children.add(str(child.id))
        return run


class EpisodeHandle:
    """The installed episode provider: `dispose()` once, counts, misses and the replay tally."""

    def __init__(
        self,
        mode: Literal["record", "replay", "new_episodes"],
        file: str,
        provider: EpisodeProvider,
        *,
        unregister: Callable[[], None],
        record: CassetteHandle | None,
        replay: CassetteHandle | None,
    ) -> None:
        self.mode = mode
        self.file = file
        self.provider = provider
        self._unregister = unregister
        self._record = record
        self._replay = replay

    def replay_tally(self) -> ReplayTally | None:
        """Consumed, covered and remaining recorded calls (None when nothing replays)."""
        return None if self._replay is None else self._replay.replay_tally()

    def assert_consumed(self) -> None:
        """Replay: raise CassetteMismatchError if interactions remain (MATCH-4)."""
        if self._replay is not None:
            self._replay.assert_consumed()

    def replay_use(self) -> ReplayUse | None:
        """The recorded call keys and those replayed or covered (None when nothing replays)."""
        return None if self._replay is None else self._replay.replay_use()

    async def dispose(self, *, interrupted: bool = False) -> None:
        """Unregister, finish the recording (if any), then the replay's consumption check.

        `interrupted` closes the recording as interrupted: a create or truncate keeps the
        committed cassette as it was (the writer's partial file holds what was recorded).
        """
        self._unregister()
        try:
            if self._record is not None and interrupted:
                self._record.mark_interrupted()
            if self._record is not None:
                await self._record.dispose()
        finally:
            if self._replay is not None:
                await self._replay.dispose()


def _free_name(registry: ProviderRegistry, name: str) -> None:
    if registry.get(name) is not None:
        raise provider_error(
            ProviderProblem(
                f'a subagent provider named "{name}" is already registered', INVALID_CONFIG
            )
        )


def _recorder_on(
    registry: ProviderRegistry, config: RecordConfig
) -> tuple[CassetteHandle, SubagentProvider]:
    """Install recording on a private registry holding only the configured upstream."""
    private = ProviderRegistry()
    upstream = registry.get(config.upstream_provider)
    if upstream is not None and upstream.name == config.upstream_provider:
        private.register(upstream)
    handle = install_cassette(private, config)
    provider = private.get(config.provider)
    if provider is None:  # install_cassette registers it or raises
        raise provider_error(ProviderProblem("the recorder was not registered", INVALID_CONFIG))
    return handle, provider


def _replay_on(config: ReplayConfig) -> tuple[CassetteHandle, SubagentProvider]:
    """Install replay on a private registry (replay never needs an upstream)."""
    private = ProviderRegistry()
    handle = install_cassette(private, config)
    provider = private.get(config.provider)
    if provider is None:
        raise provider_error(
            ProviderProblem("the replay provider was not registered", INVALID_CONFIG)
        )
    return handle, provider


def install_episodes(
    registry: ProviderRegistry,
    *,
    replay: ReplayConfig | None = None,
    record: RecordConfig | None = None,
) -> EpisodeHandle:
    """Install replay, recording or both (new_episodes) behind one provider on `registry`."""
    names = {config.provider for config in (replay, record) if config is not None}
    if len(names) != 1:
        raise provider_error(
            ProviderProblem(
                "install_episodes needs a replay or a record config, with one provider name",
                INVALID_CONFIG,
            )
        )
    (name,) = names
    _free_name(registry, name)
    replay_handle, replay_provider = _replay_on(replay) if replay is not None else (None, None)
    record_handle, recorder = _recorder_on(registry, record) if record is not None else (None, None)
    provider = EpisodeProvider(name=name, replay=replay_provider, recorder=recorder)
    unregister = registry.register(provider)
    if record_handle is not None:
        mode: Literal["record", "replay", "new_episodes"] = (
            "new_episodes" if replay_handle is not None else "record"
        )
        return EpisodeHandle(
            mode,
            record_handle.file,
            provider,
            unregister=unregister,
            record=record_handle,
            replay=replay_handle,
        )
    assert replay_handle is not None  # one of the two configs is present
    return EpisodeHandle(
        "replay",
        replay_handle.file,
        provider,
        unregister=unregister,
        record=None,
        replay=replay_handle,
    )
