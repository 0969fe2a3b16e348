"""D-3 (FMT-9 rule 7): which `createdAt` strings a header may carry; plain, no Results."""

from __future__ import annotations

import re
from datetime import date, datetime

__all__ = ["valid_created_at"]

# D-3: RFC 3339 §5.6 date-times (`T`/`Z` in either case, a space separator as its note
# allows, any number of fraction digits, `-00:00`, leap second 60), the ISO 8601 reduced
# form without seconds, or ISO calendar dates. ASCII digits only (`\d` would take any
# Unicode digit).
_ISO_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})"
    r"(?::([0-9]{2})(?:\.([0-9]+))?)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_ISO_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")


def valid_created_at(text: str) -> bool:
    """D-3: an RFC 3339 date-time (or HH:mm form) with a zone, or an ISO date; real days only."""
    match = _ISO_DATE_TIME.fullmatch(text)
    if match is not None:
        year, month, day, hour, minute = (int(match.group(i)) for i in range(1, 6))
        second = int(match.group(6) or 0)
        zone = match.group(8)
        if zone not in "Zz" and (int(zone[1:3]) > 23 or int(zone[4:6]) > 59):
            return False
        try:
            datetime(year, month, day, hour, minute, 59 if second == 60 else second)
        except ValueError:
            return False
        return True
    match = _ISO_DATE.fullmatch(text)
    if match is None:
        return False
    try:
        date(int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1))
    except ValueError:
        return False
    return True
