"""The `model_sessions` fixture's logic: per-test session logs replayed or recorded by mode.

Mode mapping (the subagent cassette's record modes applied to a `.sessions/` directory):
`none` replays (a missing directory is an error); `once` and `new_episodes` replay when the
directory holds logs, else record (session logs have no partial append); `all` records;
`rewrite` records into a sibling directory that replaces the old logs only if the test passed.
In every mode the logs of a run whose test failed are dropped, and the old logs stay as they
were: `once` would otherwise replay a failing run's answers from then on (issue 26).
Model and httpx imports happen here, never at plugin import time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import pytest
from cassette_canonical.display_text import display
from cassette_topology.sessions.errors import (
    SESSION_AMBIGUOUS,
    SESSION_EXHAUSTED,
    SESSION_EXTRA,
    SESSION_MIXED,
    SESSION_REQUEST_CHANGED,
    SESSION_UNCONSUMED,
    SESSION_UNMATCHED,
)

from cassette_provider.pytest.failed_recordings import record_command
from cassette_provider.pytest.options import OPTION
from cassette_provider.pytest.reports import rerecord_line

if TYPE_CHECKING:
    import httpx

    from cassette_provider.models import SessionRecorder, SessionReplayer

SESSIONS_SUFFIX: Final = ".sessions"
_OUTCOMES_PLUGIN: Final = "cassette-model-sessions-outcomes"
_PASSED = pytest.StashKey[bool]()
_ACTION = pytest.StashKey[str]()

ModelAction = Literal["replay", "record"]


def sessions_directory(cassette_path: Path, cassette_suffix: str) -> Path:
    """`<test dir>/cassettes/<module>/<test name>.sessions/`, beside the test's cassette."""
    stem = cassette_path.name.removesuffix(cassette_suffix)
    return cassette_path.with_name(f"{stem}{SESSIONS_SUFFIX}")


def has_logs(directory: Path) -> bool:
    """True when the directory exists and holds at least one file."""
    return directory.is_dir() and any(path.is_file() for path in directory.rglob("*"))


def model_action(mode: str, exists: bool) -> ModelAction:
    """What the fixture does with the session logs in this record mode."""
    if mode == "none":
        return "replay"
    if mode in ("once", "new_episodes"):
        return "replay" if exists else "record"
    return "record"


@dataclass
class ModelSessions:
    """One test's model replay: a replayer or a recorder, and the transport built on it."""

    action: ModelAction
    directory: Path
    replayer: SessionReplayer | None = None
    recorder: SessionRecorder | None = None
    _upstreams: list[Any] = field(default_factory=list)

    def transport(self, upstream: httpx.AsyncBaseTransport | None = None) -> Any:
        """A ReplayTransport when replaying; a RecordingTransport over `upstream` when recording."""
        from cassette_provider.models.transport import RecordingTransport, ReplayTransport

        if self.replayer is not None:
            return ReplayTransport(self.replayer)
        if upstream is None:
            raise pytest.UsageError("model_sessions is recording: pass the live upstream transport")
        assert self.recorder is not None
        return RecordingTransport(upstream, self.recorder)


class _Outcomes:
    """Remembers whether each test's call phase passed (rewrite needs it at teardown)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Iterator[None]:
        """Stash the call phase's outcome on the item."""
        report: Any = yield
        if call.when == "call":
            item.stash[_PASSED] = bool(report.passed)
        if call.excinfo is not None and report.failed:
            replay_error = model_replay_error(call.excinfo.value)
            if replay_error is not None:  # the traceback's frames would show request bodies
                action = item.stash.get(_ACTION, "replay")
                again = record_command(OPTION, item.nodeid, "rewrite")
                report.longrepr = model_failure_text(action, replay_error, again)
        return report  # type: ignore[no-any-return]


_ANONYMOUS_HINT: Final = (
    "hint: the parent's model calls have no session of their own; children started "
    "through the subagent cassette each get one, so give the parent one too: "
    'with session_scope("planner"): (cassette_provider.models.session_scope) around '
    "the parent's run"
)


#: Replay failures that mean the harness's model calls changed since the recording.
_CHANGED: Final = frozenset(
    {
        SESSION_AMBIGUOUS,
        SESSION_EXHAUSTED,
        SESSION_EXTRA,
        SESSION_REQUEST_CHANGED,
        SESSION_UNCONSUMED,
        SESSION_UNMATCHED,
    }
)


def model_failure_text(action: str, error: BaseException, record_again: str = "") -> str:
    """One report for a failed model replay or recording, with the next step when known.

    A replay whose model calls changed names `record_again` (the command that re-records),
    for when the change is intended.
    """
    verb = "recording" if action == "record" else "replay"
    code = getattr(error, "code", None)
    lines = [display(f"model {verb} failed: {error}")]
    if code == SESSION_MIXED:
        lines.append(_ANONYMOUS_HINT)
    elif action == "replay" and code in _CHANGED and record_again:
        lines.append(rerecord_line(record_again))
    return "\n".join(lines)


def model_replay_error(error: BaseException) -> BaseException | None:
    """The first model replay error in an exception's cause/context chain (walked iteratively)."""
    from cassette_provider.contract.errors import ModelReplayError

    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, ModelReplayError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _watch_outcomes(config: pytest.Config) -> None:
    """Register the outcome hook once, on first use of the fixture."""
    if config.pluginmanager.get_plugin(_OUTCOMES_PLUGIN) is None:
        config.pluginmanager.register(_Outcomes(), _OUTCOMES_PLUGIN)


def model_sessions_for(
    request: pytest.FixtureRequest, mode: str, directory: Path, record_again: str = ""
) -> Iterator[ModelSessions]:
    """Set up replay or recording for one test, then check or write the logs at teardown.

    `record_again` is the command that records this test's logs, named when `none` mode
    finds none.
    """
    from cassette_provider.extras import require_extra

    require_extra("httpx", "the model_sessions fixture")
    from cassette_provider.models import (
        SessionRecorder,
        SessionReplayer,
        harvest_session_logs_sync,
        replace_session_logs_sync,
        write_session_logs_sync,
    )

    _watch_outcomes(request.config)
    exists = has_logs(directory)
    action = model_action(mode, exists)
    request.node.stash[_ACTION] = action
    if action == "replay" and not exists:
        pytest.fail(
            display(f"no model session logs at {directory}; record them with: {record_again}"),
            pytrace=False,
        )
    if action == "replay":
        replayer = SessionReplayer.from_logs(harvest_session_logs_sync(directory))
        with replayer.covering_subagents():
            yield ModelSessions(action, directory, replayer=replayer)
        if request.node.stash.get(_PASSED, False):  # a failed test is reported once, by its call
            replayer.assert_consumed()
        return
    recorder = SessionRecorder()
    yield ModelSessions(action, directory, recorder=recorder)
    if not request.node.stash.get(_PASSED, False):
        return  # a failing or partial run's logs are never kept where a later run replays them
    if not recorder.logs():
        return  # no model call was made: nothing to write or replace
    if mode == "rewrite":
        replace_session_logs_sync(directory, recorder.logs())  # staged in a fresh mkdtemp
        return
    write_session_logs_sync(directory, recorder.logs(), prune_stale=True)
