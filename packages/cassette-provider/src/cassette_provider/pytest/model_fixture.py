"""The `model_sessions` fixture's logic: per-test session logs replayed or recorded by mode.

Mode mapping (the subagent cassette's record modes applied to a `.sessions/` directory):
`none` replays (a missing directory is an error); `once` and `new_episodes` replay when the
directory holds logs, else record (session logs have no partial append); `all` records;
`rewrite` records into a sibling directory that replaces the old logs only if the test passed.
Model and httpx imports happen here, never at plugin import time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

import pytest

if TYPE_CHECKING:
    import httpx

    from cassette_provider.models import SessionRecorder, SessionReplayer

SESSIONS_SUFFIX: Final = ".sessions"
_OUTCOMES_PLUGIN: Final = "cassette-model-sessions-outcomes"
_PASSED = pytest.StashKey[bool]()

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
                report.longrepr = f"model replay failed: {replay_error}"
        return report  # type: ignore[no-any-return]


def model_replay_error(error: BaseException) -> BaseException | None:
    """The first model replay error in an exception's cause/context chain (walked iteratively)."""
    from cassette_provider.models.errors import ModelReplayError

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
    request: pytest.FixtureRequest, mode: str, directory: Path
) -> Iterator[ModelSessions]:
    """Set up replay or recording for one test, then check or write the logs at teardown."""
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
    action = model_action(mode, has_logs(directory))
    if action == "replay":
        replayer = SessionReplayer.from_logs(harvest_session_logs_sync(directory))
        with replayer.covering_subagents():
            yield ModelSessions(action, directory, replayer=replayer)
        replayer.assert_consumed()
        return
    recorder = SessionRecorder()
    yield ModelSessions(action, directory, recorder=recorder)
    passed = request.node.stash.get(_PASSED, False)
    if not recorder.logs():
        return  # no model call was made (or the test never ran): nothing to write or replace
    if mode == "rewrite":
        if not passed:
            return  # never replace or delete the old logs after a failing or partial run
        replace_session_logs_sync(directory, recorder.logs())  # staged in a fresh mkdtemp
        return
    write_session_logs_sync(directory, recorder.logs(), prune_stale=passed)
