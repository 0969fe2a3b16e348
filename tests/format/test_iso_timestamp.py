"""Stamped times read exactly as JavaScript's toISOString writes them (FMT-22)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from cassette_format.write.header import iso_timestamp


@pytest.mark.parametrize(
    ("moment", "text"),
    [
        (datetime(2026, 12, 4, 20, 7, 53, 914999, tzinfo=UTC), "2026-12-04T20:07:53.914Z"),
        (datetime(1, 1, 1, tzinfo=UTC), "0001-01-01T00:00:00.000Z"),
        (datetime(999, 9, 9, 9, 9, 9, 1000, tzinfo=UTC), "0999-09-09T09:09:09.001Z"),
        (
            datetime(2026, 1, 1, 1, 30, tzinfo=timezone(timedelta(hours=2))),
            "2025-12-31T23:30:00.000Z",
        ),
    ],
)
def test_timestamps_read_as_javascripts_to_iso_string(moment: datetime, text: str) -> None:
    # FMT-22: `YYYY-MM-DDTHH:mm:ss.sssZ` in UTC, four-digit years, milliseconds truncated.
    assert iso_timestamp(moment) == text
