"""The run's cassette tally and its end-of-run lines (xdist workers' reports included).

Loaded by every pytest run (the entry point registers `RunTotals`), so it imports only pytest
and the standard library; the report texts load when a run that used a cassette ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

if TYPE_CHECKING:
    from cassette_provider.pytest.unused import UnusedReport

__all__ = ["NOT_COMMITTED", "REPORT_ATTRIBUTE", "RunTotals", "add_stats", "unused_lines"]

#: The attribute of a call-phase report that carries the test's cassette use.
REPORT_ATTRIBUTE: Final = "subagent_cassette"
NOT_COMMITTED: Final = "record-not-committed"
"""The summary's name for a recording that did not become the cassette (its test failed)."""


def add_stats(totals: dict[str, int], stats: Mapping[str, object]) -> None:
    """Count one test: replayed or recorded, its live (recorded) calls and its covered calls."""
    recorded = stats.get("recorded", 0)
    covered = stats.get("covered", 0)
    live = recorded if isinstance(recorded, int) else 0
    action = stats.get("action")
    if action == NOT_COMMITTED:
        kind = "not_committed"
    else:
        kind = "recorded" if action == "record" or live else "replayed"
    totals[kind] = totals.get(kind, 0) + 1
    totals["live_calls"] = totals.get("live_calls", 0) + live
    totals["covered"] = totals.get("covered", 0) + (covered if isinstance(covered, int) else 0)


def unused_lines(report: UnusedReport, root: Path) -> list[str]:
    """The unused-cassettes summary lines (counts, call keys, files), escaped."""
    from cassette_provider.pytest.reports import unused_lines as lines

    return lines(report, root)


class RunTotals:
    """The run's cassette tally; xdist workers' reports reach the controller's hooks too."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self.totals: dict[str, int] = {}
        self.drifts: list[tuple[str, Mapping[str, object]]] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Add a test's cassette use (the call phase's report carries it)."""
        stats = getattr(report, REPORT_ATTRIBUTE, None)
        if report.when == "call" and isinstance(stats, Mapping):
            add_stats(self.totals, stats)
            drift = stats.get("drift")
            if isinstance(drift, Mapping):
                self.drifts.append((report.nodeid, drift))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """One line at the end of a run that used subagent cassettes."""
        if not self.totals or hasattr(self._config, "workerinput"):
            return
        from cassette_provider.pytest.reports import drift_summary, summary_line

        if self.drifts:
            terminalreporter.section("subagent cassette drift")
            for line in drift_summary(sorted(self.drifts, key=lambda item: item[0])):
                terminalreporter.write_line(line)
        terminalreporter.write_line(summary_line(self.totals))
