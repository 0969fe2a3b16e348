"""Which `createdAt` strings a session-log header may carry, read as instants (LLMREPLAY-5).

Narrower than a cassette header's D-3 rule: an RFC 3339 date-time with `Z` or an offset
(seconds and fraction optional), or an ISO calendar date; nothing else orders sessions.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Final

__all__ = ["created_at_instant"]

_DATE_TIME: Final = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"(?:[Tt][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:[Zz]|[+-][0-9]{2}:[0-9]{2}))?",
    re.ASCII,
)


def created_at_instant(text: str) -> datetime | None:
    """Read an RFC 3339 date-time (with Z or an offset) or an ISO date; None otherwise."""
    if _DATE_TIME.fullmatch(text) is None:
        return None
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC)
        return datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None
