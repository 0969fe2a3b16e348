"""Model-call replay keyed per calling session: session logs, recorder, replayer, transports.

httpx is optional: the transports live in `cassette_provider.models.transport` and are loaded
only when first used (`from cassette_provider.models import ReplayTransport` imports httpx).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cassette_provider.models.context import CallingSession, current_session, session_scope
from cassette_provider.models.errors import (
    ModelReplayError,
    SessionLogFormatError,
    SessionReplayMismatchError,
)
from cassette_provider.models.files import (
    harvest_session_logs,
    harvest_session_logs_sync,
    load_session_log,
    read_session_log,
    write_session_logs,
    write_session_logs_sync,
)
from cassette_provider.models.recorder import (
    ANONYMOUS_SESSION_ID,
    CallRecording,
    CompleteModel,
    SessionRecorder,
    StreamModel,
)
from cassette_provider.models.replayer import SessionReplayer

if TYPE_CHECKING:
    from cassette_provider.models.transport import (
        ORDINAL_HEADER,
        SESSION_HEADER,
        RecordingTransport,
        ReplayTransport,
        model_request,
    )

_TRANSPORT_NAMES = frozenset(
    {"RecordingTransport", "ReplayTransport", "SESSION_HEADER", "ORDINAL_HEADER", "model_request"}
)


def __getattr__(name: str) -> Any:
    """Load the httpx transports lazily, so importing this package never needs httpx."""
    if name in _TRANSPORT_NAMES:
        from cassette_provider.models import transport

        return getattr(transport, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ANONYMOUS_SESSION_ID",
    "ORDINAL_HEADER",
    "SESSION_HEADER",
    "CallRecording",
    "CallingSession",
    "CompleteModel",
    "ModelReplayError",
    "RecordingTransport",
    "ReplayTransport",
    "SessionLogFormatError",
    "SessionRecorder",
    "SessionReplayMismatchError",
    "SessionReplayer",
    "StreamModel",
    "current_session",
    "harvest_session_logs",
    "harvest_session_logs_sync",
    "load_session_log",
    "model_request",
    "read_session_log",
    "session_scope",
    "write_session_logs",
    "write_session_logs_sync",
]
