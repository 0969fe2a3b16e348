"""Session logs (`cassette-session-log` v1): the model-call log of one recorded session.

The format beside the cassette it mirrors (LLMREPLAY-*): frozen records, the hash-chained
canonical JSONL codec and its one error value. Naming, ordering, scripts and binding build
on it in `cassette_topology.sessions`, which re-exports these names.
"""

from cassette_format.sessions.codec import encode_session_log, parse_session_log
from cassette_format.sessions.created_at import created_at_instant
from cassette_format.sessions.errors import (
    SESSION_LOG_FORMAT,
    SESSION_LOG_READ,
    SESSION_LOG_WRITE,
    quote,
)
from cassette_format.sessions.records import (
    SESSION_LOG_FORMAT_NAME,
    SESSION_LOG_VERSION,
    RecordedCall,
    SessionLog,
    SessionLogHeader,
)

__all__ = [
    "SESSION_LOG_FORMAT",
    "SESSION_LOG_FORMAT_NAME",
    "SESSION_LOG_READ",
    "SESSION_LOG_VERSION",
    "SESSION_LOG_WRITE",
    "RecordedCall",
    "SessionLog",
    "SessionLogHeader",
    "created_at_instant",
    "encode_session_log",
    "parse_session_log",
    "quote",
]
