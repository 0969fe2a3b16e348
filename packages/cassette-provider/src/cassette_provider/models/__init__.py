"""Model-call replay keyed per calling session: session logs, recorder, replayer, transports.

httpx is optional: the transports live in `cassette_provider.models.transport` and are loaded
only when first used (`from cassette_provider.models import ReplayTransport` imports httpx).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format.lazy_exports import lazy_exports

from cassette_provider.contract.errors import (
    ModelReplayError,
    SessionLogFormatError,
    SessionReplayMismatchError,
)
from cassette_provider.models.context import CallingSession, current_session, session_scope
from cassette_provider.models.files import (
    harvest_session_logs,
    harvest_session_logs_sync,
    load_session_log,
    read_session_log,
    replace_session_logs_sync,
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

_attribute, _ = lazy_exports(
    __name__,
    {
        "cassette_provider.models.transport": (
            "ORDINAL_HEADER",
            "SESSION_HEADER",
            "RecordingTransport",
            "ReplayTransport",
            "model_request",
        )
    },
)

if not TYPE_CHECKING:  # the httpx transports load on first use: importing this never needs httpx
    __getattr__ = _attribute


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
    "replace_session_logs_sync",
    "session_scope",
    "write_session_logs",
    "write_session_logs_sync",
]
