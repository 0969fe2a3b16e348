"""The one error value of session logs and per-session model replay: code, message, location.

The codec here fails with `SESSION_LOG_FORMAT`; the read edge with `SESSION_LOG_READ`, the
write edge with `SESSION_LOG_WRITE`;
cassette-topology adds the harvest and binding codes and fills `session`/`call_index`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from cassette_canonical import JsonValue

__all__ = ["SESSION_LOG_FORMAT", "SESSION_LOG_READ", "SESSION_LOG_WRITE", "SessionError", "quote"]

#: A session log is malformed (the message names the line).
SESSION_LOG_FORMAT: Final = "SESSION_LOG_FORMAT"
#: A session log file cannot be read.
SESSION_LOG_READ: Final = "SESSION_LOG_READ"
#: A session log cannot be written where asked (a symlinked directory, a failing disk).
SESSION_LOG_WRITE: Final = "SESSION_LOG_WRITE"


@dataclass(frozen=True, slots=True)
class SessionError:
    """A failure of session-log parsing, harvest or binding; metadata only, never bodies."""

    #: A stable `SESSION_*` code.
    code: str
    #: Metadata only: ids are quoted (`quote`), requests and chunks never appear.
    message: str
    #: The recorded or live session id the failure is about, when there is one.
    session: str | None = None
    #: The 1-based call of that session.
    call_index: int | None = None
    #: The physical 1-based line of a session log the message names.
    line: int | None = None
    #: A binding failure's DIAG-style metadata document (not part of equality).
    diagnostic: Mapping[str, JsonValue] | None = field(default=None, compare=False)


def quote(text: str) -> str:
    """JSON-quote an id for a message so control characters cannot forge output lines."""
    return json.dumps(text, ensure_ascii=False)
