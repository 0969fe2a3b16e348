"""The stable codes of harvest and binding, carried by the session log's one error value.

`quote` and the log codes live with the session-log format
(`cassette_format.sessions`); this module adds the codes only replay raises.
"""

from __future__ import annotations

from typing import Final

from cassette_format.sessions import quote

#: A harvested set of logs has no primary, several primaries or repeated ids.
SESSION_HARVEST: Final = "SESSION_HARVEST"
#: More live sessions called the model than the recording has scripts.
SESSION_EXTRA: Final = "SESSION_EXTRA"
#: A live session asked for more calls than its recorded script holds.
SESSION_EXHAUSTED: Final = "SESSION_EXHAUSTED"
#: A live request differs from the recorded one at the same call index.
SESSION_REQUEST_CHANGED: Final = "SESSION_REQUEST_CHANGED"
#: Calls without a session id were mixed with identified calls.
SESSION_MIXED: Final = "SESSION_MIXED"
#: An explicit first-call ordinal is out of range, taken, or contradicts a binding.
SESSION_ORDINAL: Final = "SESSION_ORDINAL"
#: A new live session's first request matches no unclaimed recorded script.
SESSION_UNMATCHED: Final = "SESSION_UNMATCHED"
#: Several unclaimed scripts with different calls share a new session's first request.
SESSION_AMBIGUOUS: Final = "SESSION_AMBIGUOUS"
#: Recorded calls were left unconsumed when the replay ended.
SESSION_UNCONSUMED: Final = "SESSION_UNCONSUMED"
#: A model request is not lossless canonical JSON, so it cannot be fingerprinted.
SESSION_REQUEST_INVALID: Final = "SESSION_REQUEST_INVALID"
#: A replayer was configured with an unknown option (a binding policy name).
SESSION_CONFIG: Final = "SESSION_CONFIG"
#: A recorded response was redacted and replaying it was not allowed.
SESSION_REDACTED: Final = "SESSION_REDACTED"
#: A recording cannot be completed (a call never finished, a session declared twice).
SESSION_RECORD: Final = "SESSION_RECORD"

#: How an anonymous live session (calls without a session id) is named in messages.
ANONYMOUS_SESSION_LABEL: Final = "<anonymous>"


def session_label(session_id: str | None) -> str:
    """Name a live session in a message: its quoted id, or the anonymous label."""
    return ANONYMOUS_SESSION_LABEL if session_id is None else quote(session_id)
