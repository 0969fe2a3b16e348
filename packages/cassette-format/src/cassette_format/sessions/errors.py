"""The codes of session logs, and how a message quotes an id.

Session-log failures are the package's one error value, `cassette_format.problem.FormatProblem`:
the codec fails with `SESSION_LOG_FORMAT`, the read edge with `SESSION_LOG_READ`, the write
edge with `SESSION_LOG_WRITE`; cassette-topology adds the harvest and binding codes and fills
`session`/`call_index`.
"""

from __future__ import annotations

import json
from typing import Final

__all__ = ["SESSION_LOG_FORMAT", "SESSION_LOG_READ", "SESSION_LOG_WRITE", "quote"]

#: A session log is malformed (the message names the line).
SESSION_LOG_FORMAT: Final = "SESSION_LOG_FORMAT"
#: A session log file cannot be read.
SESSION_LOG_READ: Final = "SESSION_LOG_READ"
#: A session log cannot be written where asked (a symlinked directory, a failing disk).
SESSION_LOG_WRITE: Final = "SESSION_LOG_WRITE"


def quote(text: str) -> str:
    """JSON-quote an id for a message so control characters cannot forge output lines."""
    return json.dumps(text, ensure_ascii=False)
