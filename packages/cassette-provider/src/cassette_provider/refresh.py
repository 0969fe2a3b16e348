"""`refresh`: replay what the cassette matches, record what it lacks, drop what nothing used.

`install_refresh` puts one provider under the cassette's name (an `EpisodeProvider`): a start
the cassette matches is replayed; a miss goes to the upstream and is recorded, into a staging
copy of the cassette opened in append mode (so occurrences and sequences continue the old
ones, and WRITE-4 refuses a changed policy). Disposing commits only a clean run: the new
cassette (`cassette_topology.refresh.plan_refresh`: the old header, the used old interactions
in their old order with their bodies unchanged, then the recorded ones) is written through
the writer in truncate mode, so it replaces the old file atomically; an interrupted or failed
run (`dispose(interrupted=True)`, an exception through `async with`, or `discard()`) leaves the
old cassette byte-identical. Interactions beneath a replayed call are covered (issue 12) and
so kept; the old subtree of a call recorded anew is not used, and so dropped.
After a commit, `drift` is the drift report of the old cassette against the new one.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
from dataclasses import replace
from types import TracebackType
from typing import Literal

from cassette_format.read.parse import load_cassette
from cassette_format.records import CassetteInteraction
from cassette_format.records.cassette_file import CassetteFile
from cassette_format.write.tail_seal import discard_sealed
from cassette_format.write.writer import CassetteWriter
from cassette_topology.drift import DriftReport, drift_report
from cassette_topology.refresh import RefreshPlan, plan_refresh

from cassette_provider.contract.registry import ProviderRegistry
from cassette_provider.episodes import EpisodeHandle, EpisodeProvider, install_episodes
from cassette_provider.install import RecordConfig, ReplayConfig, expand_path
from cassette_provider.replay.replayer import ReplayTally, ReplayUse

__all__ = ["RefreshHandle", "install_refresh", "staging_path"]


def staging_path(path: str) -> str:
    """The sibling a refresh records into before the new cassette is composed."""
    return f"{path}.refresh-{os.getpid()}-{secrets.token_hex(4)}"


class RefreshHandle:
    """A refreshing cassette: the episode provider, then a commit or a discard at the end.

    `dispose()` finishes the recording and commits (or, when `interrupted`, discards);
    with `commit_on_dispose=False` the caller decides later with `commit()` or `discard()`,
    as the pytest plugin does once it knows whether the test passed.
    """

    mode: Literal["refresh"] = "refresh"

    def __init__(
        self,
        file: str,
        old: CassetteFile,
        staging: str,
        episodes: EpisodeHandle,
        *,
        commit_on_dispose: bool = True,
    ) -> None:
        self.file = file
        self._old = old
        self._staging = staging
        self._episodes = episodes
        self._commit_on_dispose = commit_on_dispose
        self._finished = False
        self._settled = False
        self.plan: RefreshPlan | None = None
        self.drift: DriftReport | None = None

    @property
    def provider(self) -> EpisodeProvider:
        """The provider registered under the cassette's name."""
        return self._episodes.provider

    def replay_tally(self) -> ReplayTally | None:
        """Replayed, covered and remaining old interactions so far."""
        return self._episodes.replay_tally()

    def replay_use(self) -> ReplayUse | None:
        """The old call keys and those a live call replayed or covered."""
        return self._episodes.replay_use()

    def assert_consumed(self) -> None:
        """Nothing to assert: what nothing used is dropped, not a failure."""

    async def dispose(self, *, interrupted: bool = False) -> None:
        """Finish the recording; then commit a clean run (unless deferred) or discard."""
        if not self._finished:
            self._finished = True
            try:
                await self._episodes.dispose(interrupted=interrupted)
            except BaseException:
                self.discard()
                raise
        if interrupted:
            self.discard()
        elif self._commit_on_dispose:
            await self.commit()

    def discard(self) -> None:
        """Leave the old cassette as it was and remove the staging copy."""
        self._settled = True
        discard_sealed(self._staging)  # and the seal its append left

    async def commit(self) -> None:
        """Compose the refreshed cassette and let the writer replace the old one atomically."""
        if self._settled:
            return
        self._settled = True
        try:
            staged = await asyncio.to_thread(load_cassette, self._staging)
            old_keys = {item.call_key for item in self._old.interactions}
            recorded = [item for item in staged.interactions if item.call_key not in old_keys]
            use = self.replay_use()
            used = frozenset() if use is None else use.used
            plan = plan_refresh(self._old.interactions, used, recorded)
            self.plan = plan
            written = await _write(self.file, self._old, plan)
            self.drift = drift_report(self._old.interactions, written)
        finally:
            discard_sealed(self._staging)  # and the seal its append left

    async def __aenter__(self) -> RefreshHandle:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.dispose(interrupted=exc_type is not None)


async def _write(
    path: str, old: CassetteFile, plan: RefreshPlan
) -> tuple[CassetteInteraction, ...]:
    """Write the plan under the old header (truncate: a partial file renamed over at close)."""
    written: list[CassetteInteraction] = []
    async with await CassetteWriter.open(path, old.header, "truncate") as writer:
        for body in plan.bodies:  # an exception marks the recording interrupted: no commit
            written.append(await writer.append(body))
    return tuple(written)


def install_refresh(
    registry: ProviderRegistry,
    record: RecordConfig,
    replay: ReplayConfig | None = None,
    *,
    commit_on_dispose: bool = True,
) -> RefreshHandle | EpisodeHandle:
    """Install `refresh` for `record.file`; a missing cassette is simply recorded (create).

    `replay` supplies the matching options (duplicate policy, redacted replay, timing); its
    `file`, `provider` and `assert_consumed` are taken from `record` and the mode. The
    record config's `write_mode` is ignored. Refused before anything is installed:
    a cassette the loader rejects, or a policy (provider names, storage, redaction) that
    differs from the cassette's header (WRITE-4).
    """
    path = expand_path(record.file)
    if not os.path.exists(path):
        return install_episodes(registry, record=replace(record, file=path, write_mode="create"))
    old = load_cassette(path)
    staging = staging_path(path)
    shutil.copyfile(path, staging)
    options = replay if replay is not None else ReplayConfig()
    # The subtree of a replayed call is never asked for again but belongs to its answer:
    # covered, so kept, whatever `strict_subtrees` says about consumption checks.
    replaying = replace(
        options,
        file=path,
        provider=record.provider,
        assert_consumed=False,
        strict_subtrees=False,
    )
    try:
        episodes = install_episodes(
            registry,
            # A header-only cassette has nothing to replay (CASSETTE_EMPTY): record alone.
            replay=replaying if old.interactions else None,
            record=replace(record, file=staging, write_mode="append"),
        )
    except BaseException:
        discard_sealed(staging)
        raise
    return RefreshHandle(path, old, staging, episodes, commit_on_dispose=commit_on_dispose)
