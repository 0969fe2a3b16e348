"""`cassette report <cassette> [--against <old>] -o <report.html>` at the I/O edge (issue 25)."""

from __future__ import annotations

import errno
import os
import tempfile
from typing import TYPE_CHECKING

from cassette_cli.display import display

if TYPE_CHECKING:
    from cassette_cli.arguments import ReportCommand
    from cassette_cli.terminal import Output

__all__ = ["run_report", "write_report"]


def write_report(path: str, page: str) -> None:
    """Write the page beside its target, then rename it over: never a half-written report."""
    target = os.path.abspath(path)
    if os.path.isdir(target):  # checked first: no temporary page is made beside a directory
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), target)
    directory = os.path.dirname(target)
    handle, temporary = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(page)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def run_report(command: ReportCommand, output: Output) -> int:
    """Load, build the view (and the drift against `--against`), write the page; exit 0 or 1."""
    from cassette_format import load_cassette
    from cassette_topology.drift import drift_report

    from cassette_cli.html_report import html_report
    from cassette_cli.report_view import report_view

    try:
        older = None if command.against is None else load_cassette(command.against)
        cassette = load_cassette(command.path)
        drift = None if older is None else drift_report(older.interactions, cassette.interactions)
        page = html_report(report_view(cassette, drift))
    except Exception as error:  # the CLI edge: every failure is a message
        output.err(display(str(error)))
        return 1
    try:
        write_report(command.output, page)
    except OSError as error:  # name the target, never the temporary page beside it
        reason = error.strerror or type(error).__name__
        output.err(display(f'cannot write report "{os.path.abspath(command.output)}": {reason}'))
        return 1
    output.out(f"wrote {display(os.path.abspath(command.output))}")
    return 0
