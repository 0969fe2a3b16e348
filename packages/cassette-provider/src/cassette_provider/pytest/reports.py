"""The pytest plugin's failure, section and summary texts: metadata only, escaped as the CLI does.

Every cassette-derived string (call keys, labels, messages naming them) goes through
`cassette_canonical.display_text.display` and diagnostics through the CLI's JSON printer, so a
hostile label cannot steer a terminal or a JUnit XML reader. Loaded only when a report needs it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from cassette_canonical.display_text import display
from cassette_canonical.json_text import json_document
from cassette_topology.closest import lead_line
from cassette_topology.diagnostics import MismatchDiagnostic
from cassette_topology.errors import CASSETTE_MISMATCH

from cassette_provider.pytest.wording import python_words

if TYPE_CHECKING:
    from pathlib import Path

    from cassette_provider.pytest.unused import UnusedReport
    from cassette_provider.replay.replayer import ReplayTally

__all__ = [
    "DIAGNOSTIC_SECTION",
    "covered_report",
    "diagnostic_text",
    "drift_summary",
    "failure_message",
    "find_mismatch",
    "lead_for",
    "mismatch_report",
    "refused_report",
    "rerecord_line",
    "summary_line",
    "swallowed_report",
    "unused_lines",
]

DIAGNOSTIC_SECTION: Final = "subagent cassette diagnostic"
_HIDDEN: Final = "(traceback hidden: its frames can show the live request)"
_COVERED_SAMPLE: Final = 5


def find_mismatch(error: BaseException) -> BaseException | None:
    """The first cassette mismatch (code CASSETTE_MISMATCH) in an exception's cause chain."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if getattr(current, "code", None) == CASSETTE_MISMATCH:
            return current
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
    return None


def _described(error: BaseException) -> str:
    """`Type: message`, escaped as one display string."""
    return display(f"{type(error).__name__}: {error}")


def lead_for(mismatch: BaseException) -> str | None:
    """The escaped one-line lead of a mismatch: closest recorded call and what differs."""
    diagnostic = getattr(mismatch, "diagnostic", None)
    if not isinstance(diagnostic, MismatchDiagnostic):
        return None
    return display(lead_line(diagnostic))


def diagnostic_text(error: BaseException) -> str | None:
    """The metadata-only diagnostic of a mismatch in an exception chain, as the CLI prints it."""
    mismatch = find_mismatch(error)
    as_document = getattr(getattr(mismatch, "diagnostic", None), "as_document", None)
    if not callable(as_document):
        return None
    return json_document(as_document())


def _mismatch_lines(mismatch: BaseException) -> list[str]:
    lines = [_described(mismatch)]
    diagnostic = diagnostic_text(mismatch)
    if diagnostic is not None:
        lines += ["", f"{DIAGNOSTIC_SECTION}:", diagnostic]
    return lines


def rerecord_line(command: str) -> str:
    """The next step after a mismatch the user meant: the command that records again."""
    return display(f"If the change is intended, record again: {command}")


def mismatch_report(error: BaseException, next_step: str | None = None) -> str | None:
    """A failure text for a test that hit a mismatch: lead, next step, message, diagnostic.

    It replaces pytest's traceback, whose frames print call arguments such as the live
    request, so a failure report never carries prompt text.
    """
    mismatch = find_mismatch(error)
    if mismatch is None:
        return None
    lines: list[str] = []
    lead = lead_for(mismatch)
    if lead is not None:
        lines.append(lead)
    if next_step is not None:
        lines.append(next_step)
    if mismatch is not error:
        lines.append(display(f"{type(error).__name__} caused by a subagent cassette mismatch:"))
    lines += [*_mismatch_lines(mismatch), "", _HIDDEN]
    return "\n".join(lines)


def swallowed_report(misses: Sequence[BaseException], later: BaseException | None) -> str:
    """A failure text for mismatches the harness caught: the first one in full, then a count."""
    first = misses[0]
    lines: list[str] = []
    lead = lead_for(first)
    if lead is not None:
        lines.append(lead)
    lines.append(
        f"{len(misses)} subagent cassette mismatch(es) were raised inside the test and "
        "swallowed by the harness; the first:"
    )
    lines += _mismatch_lines(first)
    if later is not None:
        lines += ["", "then, at the end of the test:", _described(later)]
    return "\n".join(lines)


def refused_report(refused: Sequence[str], option: str) -> str:
    """A failure text for connections the guard refused and the harness swallowed."""
    return display(
        f"{len(refused)} connection(s) refused by {option} during replay were swallowed by "
        f"the harness; the first to {refused[0]}"
    )


def failure_message(path: str, action: str, error: BaseException, hints: Sequence[str] = ()) -> str:
    """A failure text for a cassette fault (setup, unconsumed calls, writes), then its hints.

    Option names are those a Python user types (`allow_redacted_replay`, not the
    reference's `allowRedactedReplay`).
    """
    lines = [display(python_words(f"subagent cassette {path} ({action}): {error}"))]
    lines += [f"hint: {hint}" for hint in hints]
    diagnostic = diagnostic_text(error)
    if diagnostic is not None:
        lines += ["", f"{DIAGNOSTIC_SECTION}:", diagnostic]
    return "\n".join(lines)


def covered_report(tally: ReplayTally | None) -> str | None:
    """A replay's covered calls as report lines (call keys only), or None when none were.

    Covered: recorded beneath a call whose recorded result replay delivered (issue 12).
    """
    if tally is None or not tally.covered:
        return None
    covered = tally.covered
    lines = [
        f"replayed {tally.consumed} interaction(s); {len(covered)} covered "
        "(recorded beneath a delivered result, not re-run, counted as consumed):"
    ]
    lines += [f"  covered {display(call.call_key)}" for call in covered[:_COVERED_SAMPLE]]
    if len(covered) > _COVERED_SAMPLE:
        lines.append(f"  ... and {len(covered) - _COVERED_SAMPLE} more")
    return "\n".join(lines)


def summary_line(totals: Mapping[str, int]) -> str:
    """The end-of-run line: tests replayed and recorded, live calls made, calls covered.

    A recording whose test failed is counted apart: it did not become a cassette.
    """
    line = (
        f"subagent cassettes: {totals.get('replayed', 0)} test(s) replayed, "
        f"{totals.get('recorded', 0)} recorded, {totals.get('live_calls', 0)} live call(s), "
        f"{totals.get('covered', 0)} covered"
    )
    not_committed = totals.get("not_committed", 0)
    if not_committed:
        line += f", {not_committed} recording(s) not committed (their tests failed)"
    return line


def drift_summary(drifts: Sequence[tuple[str, Mapping[str, object]]]) -> list[str]:
    """Per re-recorded test: its node id and cassette, then its drift lines (already escaped)."""
    lines: list[str] = []
    for nodeid, drift in drifts:
        path = drift.get("path")
        lines.append(f"{display(nodeid)}  {display(path if isinstance(path, str) else '')}")
        found = drift.get("lines")
        if isinstance(found, list):
            lines.extend(f"  {line}" for line in found if isinstance(line, str))
    return lines


_UNUSED_SAMPLE: Final = 5
#: What to do about what the unused report lists, one line each.
_REFRESH_HINT: Final = (
    "re-record the tests that replay them with --subagent-cassette-mode=refresh "
    "(or pass assert_consumed=False where a partial replay is intended)"
)
_REMOVE_HINT: Final = "remove it together with its .seal (git rm <file> <file>.seal)"


def unused_lines(report: UnusedReport, root: Path) -> list[str]:
    """The unused-cassettes summary: counts, each cassette's unused call keys, each file."""

    def shown(path: str) -> str:
        return display(os.path.relpath(path, root))

    count = sum(len(found) for _, found in report.interactions)
    lines = [
        f"{count} unused interaction(s) in {len(report.interactions)} cassette(s), "
        f"{len(report.files)} unused cassette file(s)"
    ]
    for path, found in report.interactions:
        sample = ", ".join(display(key) for key in found[:_UNUSED_SAMPLE])
        more = f" and {len(found) - _UNUSED_SAMPLE} more" if len(found) > _UNUSED_SAMPLE else ""
        lines.append(f"  {shown(path)}: {sample}{more}")
    lines.extend(f"  {shown(path)} (no test used this cassette)" for path in report.files)
    if report.interactions:
        lines.append(f"drop unused interactions: {_REFRESH_HINT}")
    if report.files:
        lines.append(f"a file whose test is gone: {_REMOVE_HINT}")
    return lines
