"""D-3 (FMT-9 rule 7): which `createdAt` strings a header may carry; plain, no Results."""

from __future__ import annotations

import re

__all__ = ["valid_created_at"]

# D-3: RFC 3339 §5.6 date-times (`T`/`Z` in either case, a space separator as its note
# allows, any number of fraction digits, `-00:00`, leap second 60), the ISO 8601 reduced
# form without seconds, or ISO calendar dates. ASCII digits only (`\d` would take any
# Unicode digit). Years run 0000-9999 (RFC 3339 `date-fullyear = 4DIGIT`; JavaScript's
# Date.parse takes year 0000 too), so days are counted here rather than by `datetime`,
# whose years start at 1.
_ISO_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})"
    r"(?::([0-9]{2})(?:\.([0-9]+))?)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_ISO_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")
_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _real_day(year: int, month: int, day: int) -> bool:
    """A day of the proleptic Gregorian calendar (RFC 3339 §5.7; year 0000 is a leap year)."""
    if not 1 <= month <= 12 or day < 1:
        return False
    leap = month == 2 and year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return day <= _DAYS[month - 1] + leap


def valid_created_at(text: str) -> bool:
    """D-3: an RFC 3339 date-time (or HH:mm form) with a zone, or an ISO date; real days only."""
    match = _ISO_DATE_TIME.fullmatch(text)
    if match is not None:
        year, month, day, hour, minute = (int(match.group(i)) for i in range(1, 6))
        second = int(match.group(6) or 0)
        zone = match.group(8)
        if zone not in "Zz" and (int(zone[1:3]) > 23 or int(zone[4:6]) > 59):
            return False
        return _real_day(year, month, day) and hour <= 23 and minute <= 59 and second <= 60
    match = _ISO_DATE.fullmatch(text)
    if match is None:
        return False
    return _real_day(int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1))
