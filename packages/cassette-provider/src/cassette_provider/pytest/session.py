"""One test's installed cassette: install it, finish it, commit or discard it, report on it.

A recording reaches the cassette only when its test passes and it recorded a call
(failed_recordings); `rewrite`, `refresh` and `new_episodes` replace the cassette only then
(`new_episodes` appends to a staged copy of the cassette, moved over it on a pass). Loaded only by
tests that use a cassette, so it imports the provider stack freely.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from cassette_format.errors import CassetteError
from cassette_format.read.parse import load_cassette
from cassette_format.records.cassette_file import CassetteFile
from cassette_format.write.safe_files import create_new, write_all
from cassette_format.write.tail_seal import discard_sealed, replace_sealed
from cassette_topology.drift import DriftReport, drift_report
from cassette_topology.drift_terms import drift_lines
from cassette_topology.errors import CASSETTE_MISMATCH

from cassette_provider.contract.registry import ProviderRegistry
from cassette_provider.episodes import EpisodeHandle, install_episodes
from cassette_provider.install import RecordConfig, ReplayConfig
from cassette_provider.pytest.failed_recordings import (
    discard_stale_failed,
    failed_sibling,
    keep_failed,
    no_call_message,
    not_committed_note,
    record_command,
)
from cassette_provider.pytest.network_guard import NetworkGuard
from cassette_provider.pytest.options import BLOCK_OPTION, OPTION, RecordMode
from cassette_provider.pytest.planning import (
    PLAN_KEYS,
    CassettePlan,
    rewrite_target,
    split_for_provider,
)
from cassette_provider.pytest.reports import (
    covered_report,
    failure_message,
    find_mismatch,
    refused_report,
    swallowed_report,
)
from cassette_provider.pytest.summary import NOT_COMMITTED
from cassette_provider.pytest.unused import UseRecord
from cassette_provider.pytest.wording import hints_for
from cassette_provider.refresh import RefreshHandle, install_refresh

__all__ = ["CassetteSession", "drift_against", "drift_lines_for", "open_session"]

#: The fixture that yields an async test's running loop (defined by the plugin).
LOOP_FIXTURE = "_cassette_event_loop"


def _install(
    plan: CassettePlan, registry: ProviderRegistry, target: Path
) -> EpisodeHandle | RefreshHandle:
    """Build the configs for the plan and install them behind one episode provider."""
    options = {k: v for k, v in plan.options.items() if k not in PLAN_KEYS}
    record, replay = split_for_provider(options)
    if plan.action == "refresh":
        return install_refresh(
            registry,
            RecordConfig(file=str(plan.path), **record),  # type: ignore[arg-type]
            ReplayConfig(file=str(plan.path), **replay),  # type: ignore[arg-type]
            commit_on_dispose=False,  # `settle` commits once the test passed
        )
    if plan.action == "replay":
        return install_episodes(registry, replay=ReplayConfig(file=str(plan.path), **replay))  # type: ignore[arg-type]
    write_mode = plan.write_mode if plan.write_mode is not None else "create"
    record_config = RecordConfig(file=str(target), write_mode=write_mode, **record)  # type: ignore[arg-type]
    if plan.action == "record":
        return install_episodes(registry, record=record_config)
    replay["assert_consumed"] = False  # new_episodes keeps what the test no longer calls
    replay_config = ReplayConfig(file=str(plan.path), **replay)  # type: ignore[arg-type]
    if registry.get(record_config.upstream_provider) is None:
        # Nothing to record with: replay alone, and a new call fails as a mismatch.
        return install_episodes(registry, replay=replay_config)
    return install_episodes(registry, replay=replay_config, record=record_config)


def loaded_or_none(path: Path) -> CassetteFile | None:
    """The cassette a re-recording replaces, for its drift report; None if it is unreadable."""
    try:
        return load_cassette(path)
    except Exception:  # a broken old cassette is being re-recorded: no drift to show
        return None


def drift_lines_for(report: DriftReport) -> list[str]:
    """The drift report as escaped lines (counts, then one line per changed call)."""
    return drift_lines(report)


def drift_against(before: CassetteFile, path: Path) -> list[str] | None:
    """The drift of the cassette now at `path` against the one it replaced, as lines."""
    after = loaded_or_none(path)
    if after is None:
        return None
    return drift_lines_for(drift_report(before.interactions, after.interactions))


def setup_refusal(plan: CassettePlan, registry: ProviderRegistry, error: BaseException) -> str:
    """The setup failure of a cassette that cannot be installed, with the next step."""
    upstream = str(plan.options.get("upstream_provider", "spawn"))
    hints = hints_for(error, registered=registry.names(), upstream=upstream)
    return failure_message(str(plan.path), plan.action, error, hints)


@dataclass(slots=True)
class CassetteSession:
    """One test's installed cassette, its loop, its guard, and how it was finished."""

    plan: CassettePlan
    handle: EpisodeHandle | RefreshHandle
    loop: asyncio.AbstractEventLoop
    owns_loop: bool
    target: Path
    existed: bool = False
    record_again: RecordMode = "once"
    runs_test: bool = False
    guard: NetworkGuard | None = None
    finished: bool = False
    covered: str | None = None
    covered_count: int = 0
    settled: bool = False
    before: CassetteFile | None = None
    drift: list[str] | None = None
    uses: UseRecord | None = None
    committed: bool = False
    no_call: bool = False
    kept: Path | None = None
    staged: bool = False
    appended: bool = False

    def finish(self, *, passed: bool, interrupted: bool = False) -> BaseException | None:
        """Dispose of the handle once; return what it raised (unconsumed calls, write faults).

        A recording is committed only when its test passed and it recorded a call; otherwise
        it is closed as interrupted (the cassette stays as it was) and kept as
        `<cassette>.failed`, or removed when it holds no call (failed_recordings).
        `interrupted` (Ctrl-C, a crash of the run) keeps a truncated cassette as it was too.
        """
        if self.finished:
            return None
        self.finished = True
        tally = self.handle.replay_tally()
        self.covered = covered_report(tally)
        self.covered_count = 0 if tally is None else len(tally.covered)
        recording = self.plan.action == "record"
        recorded = self.handle.provider.counts().recorded
        self.no_call = recording and passed and recorded == 0
        hold = (recording or self.staged) and (not passed or recorded == 0)
        self.appended = self.staged and recorded > 0
        try:
            self.loop.run_until_complete(self.handle.dispose(interrupted=interrupted or hold))
        except Exception as error:  # reported as the test's failure by the caller
            return error
        finally:
            self._record_use()
            if hold:
                self.kept = self._keep_failed(recorded)
        if (recording or self.staged) and not hold:
            self.committed = True
            discard_stale_failed(self.plan.path)
        return None

    def _keep_failed(self, recorded: int) -> Path | None:
        """Keep a failed recording as `<cassette>.failed` (a staged append: its copy)."""
        if not self.staged:
            return keep_failed(self.target, self.plan.path, recorded=recorded)
        if recorded == 0 or not self.target.is_file():
            discard_sealed(self.target)
            return None
        kept = failed_sibling(self.plan.path)
        discard_sealed(kept)
        os.replace(self.target, kept)
        discard_sealed(self.target)  # no seal was written for an interrupted append
        return kept

    def not_committed_note(self, nodeid: str) -> str | None:
        """What a failed recording left and the command that records again (None otherwise)."""
        if self.committed or not (self.plan.action == "record" or self.appended):
            return None
        command = record_command(OPTION, nodeid, self.record_again, self.plan.pinned)
        return not_committed_note(self.plan.path, self.kept, existed=self.existed, command=command)

    def no_call_failure(self, nodeid: str) -> str | None:
        """The failure of a passing recording test that started no child (None otherwise)."""
        if not self.no_call:
            return None
        provider = str(self.plan.options.get("provider", "cassette"))
        command = record_command(OPTION, nodeid, self.record_again, self.plan.pinned)
        return no_call_message(self.plan.path, provider, command)

    def _record_use(self) -> None:
        """Tell the run which recorded calls this test used (unused cassettes, issue 25)."""
        if self.uses is None:
            return
        use = self.handle.replay_use()
        self.uses.used(
            os.path.abspath(self.plan.path),
            () if use is None else use.keys,
            () if use is None else use.used,
            recorded=self.plan.action in {"record", "refresh"},
        )

    def settle(self, *, passed: bool) -> BaseException | None:
        """`rewrite` and `refresh`: replace the cassette on a pass, else discard the new one.

        Returns what a refresh commit raised (the test then fails). Afterwards the drift
        of a re-recorded cassette against the one it replaced is kept for the summary.
        """
        if self.settled:
            return None
        self.settled = True
        handle = self.handle
        if isinstance(handle, RefreshHandle):
            if not passed:
                handle.discard()
                return None
            try:
                self.loop.run_until_complete(handle.commit())
            except Exception as error:  # reported as the test's failure by the caller
                return error
            self.drift = None if handle.drift is None else drift_lines_for(handle.drift)
            return None
        if self.plan.rewrite or self.staged:
            if passed and self.committed and self.target.is_file():
                replace_sealed(self.target, self.plan.path)  # its seal too; the old mode is kept
            else:
                discard_sealed(self.target)  # the committed cassette stays as it was
                return None
        if self.before is not None and self.plan.action == "record" and self.committed:
            self.drift = drift_against(self.before, self.plan.path)
        return None

    def failed_call_notes(self, nodeid: str, error: BaseException) -> str | None:
        """Finish after a failed test body: what else to report beside its failure, if any.

        Calls the test never reached are part of its failure, not a second report (a write
        fault still is); mismatches the harness swallowed lead; a failed recording says what
        it left and the command that records again.
        """
        late = self.finish(passed=False, interrupted=not isinstance(error, Exception))
        self.settle(passed=False)
        if getattr(late, "code", None) == CASSETTE_MISMATCH:
            late = None
        notes = [self.failure_text(late)] if late is not None else []
        misses = self.handle.provider.misses
        if misses and find_mismatch(error) is None:
            notes.insert(0, swallowed_report(misses, None))
        kept = self.not_committed_note(nodeid)
        if kept is not None:
            notes.append(kept)
        return "\n\n".join(notes) if notes else None

    def passed_call_failure(self, nodeid: str) -> str | None:
        """Finish after a passing test body: the failure it still has (None: it passed)."""
        failure = self._outcome_failure(self.finish(passed=True))
        failure = failure or self.no_call_failure(nodeid)
        unsettled = self.settle(passed=failure is None)
        if failure is None and unsettled is not None:
            failure = self.failure_text(unsettled)
        return failure

    def _outcome_failure(self, failure: BaseException | None) -> str | None:
        """The failure text for a test body that passed: swallowed mismatches, refusals, faults."""
        misses = self.handle.provider.misses
        if misses:
            return swallowed_report(misses, failure)
        refused = () if self.guard is None else self.guard.refused
        if refused:
            return refused_report(refused, BLOCK_OPTION)
        return None if failure is None else self.failure_text(failure)

    def failure_text(self, error: BaseException) -> str:
        """A fault of this cassette as the test's failure: path, action, message."""
        return failure_message(str(self.plan.path), self.plan.action, error)

    def teardown(self) -> None:
        """After a setup error (the call phase never ran): finish, discard, release.

        The body never ran (the setup error is the report), so unconsumed calls are expected;
        any other fault of the cassette is raised.
        """
        try:
            late = self.finish(passed=False)
            self.settle(passed=False)
            if late is not None and getattr(late, "code", None) != CASSETTE_MISMATCH:
                raise late
        finally:
            self.close()

    def stats(self) -> dict[str, object]:
        """What the end-of-run summary needs from this test (plain data, xdist-serializable)."""
        counts = self.handle.provider.counts()
        action = self.plan.action
        stats: dict[str, object] = {
            "action": NOT_COMMITTED if self._not_committed() else action,
            "replayed": counts.replayed,
            "recorded": counts.recorded,
            "covered": self.covered_count,
        }
        if self.drift is not None:
            stats["drift"] = {"path": str(self.plan.path), "lines": self.drift}
        return stats

    def _not_committed(self) -> bool:
        """A recording (or a staged append that recorded) that did not become the cassette."""
        return not self.committed and (self.plan.action == "record" or self.appended)

    def close(self) -> None:
        """Release the guard and the private loop of a sync test."""
        if self.guard is not None:
            self.guard.remove()
        if self.owns_loop and not self.loop.is_closed():
            self.loop.close()


def _stage_copy(cassette: Path, copy: Path) -> None:
    """A private copy of the cassette for `new_episodes` to append to (committed on a pass)."""
    data = cassette.read_bytes()
    fd = create_new(str(copy))
    try:
        write_all(fd, data)
    finally:
        os.close(fd)


def _abandon(loop: asyncio.AbstractEventLoop | None, staged: Path | None) -> None:
    """Undo a session that could not be installed: its private loop, its staged copy."""
    if loop is not None:
        loop.close()
    if staged is not None:
        discard_sealed(staged)


def open_session(
    request: pytest.FixtureRequest,
    registry: ProviderRegistry,
    plan: CassettePlan,
    mode: RecordMode,
    *,
    runs_test: bool,
    uses: UseRecord | None,
) -> CassetteSession:
    """Install the planned cassette on the test's loop (or a private one) and guard replay.

    A cassette or config that cannot be installed fails the test with one message and the
    next step, without a chained traceback.
    """
    if inspect.iscoroutinefunction(request.function) and not runs_test:
        loop: asyncio.AbstractEventLoop = request.getfixturevalue(LOOP_FIXTURE)
        owns_loop = False
    else:  # a sync test, or a coroutine test no async plugin claims (run here, on this loop)
        loop = asyncio.new_event_loop()
        owns_loop = True
    staged = plan.action == "new_episodes"
    target = rewrite_target(plan.path) if plan.rewrite or staged else plan.path
    existed = plan.path.exists()
    # What records this test again after a failed recording: a re-recording mode re-records
    # an existing cassette, new_episodes appends again; `once` records a missing one.
    again: RecordMode = mode if existed and mode in {"all", "rewrite", "new_episodes"} else "once"
    if staged:
        _stage_copy(plan.path, target)
    refusal: str | None = None
    try:
        handle = _install(plan, registry, target)
    except CassetteError as error:  # a bad cassette or config: escaped text, no traceback
        refusal = setup_refusal(plan, registry, error)
    except BaseException:
        _abandon(loop if owns_loop else None, target if staged else None)
        raise
    if refusal is not None:  # failed outside the handler: one message, no chained traceback
        _abandon(loop if owns_loop else None, target if staged else None)
        pytest.fail(refusal, pytrace=False)
    session = CassetteSession(
        plan, handle, loop, owns_loop, target, existed, again, runs_test=runs_test, uses=uses
    )
    session.staged = staged
    if plan.action == "record" and plan.path.is_file():  # all, rewrite: drift against it
        session.before = loaded_or_none(plan.path)
    if plan.action == "replay" and plan.options.get("block_network") is True:
        session.guard = NetworkGuard(f"{BLOCK_OPTION} or block_network=True")
        session.guard.install()
    return session
