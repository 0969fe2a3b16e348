"""The reference's commands at the I/O edge: load, summarize, print, choose the exit code.

Every failure while loading or comparing becomes `display(message)` on stderr and exit 1
(CLI-11); the messages are the format package's, which never hold bodies (ERR-4).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cassette_cli.display import display

if TYPE_CHECKING:
    from cassette_cli.arguments import DiffCommand, InspectCommand
    from cassette_cli.terminal import Output

__all__ = ["run_diff", "run_inspect", "run_verify_file"]


def _failed(output: Output, error: Exception) -> int:
    output.err(display(str(error)))
    return 1


def run_verify_file(path: str, *, as_json: bool, output: Output) -> int:
    """`verify <file>`: the streaming verifier's summary, as one line or a document (CLI-5)."""
    from cassette_format import verify_file

    from cassette_cli.incomplete import incomplete_notes

    for note in incomplete_notes(path):  # stderr only: the reference's output is unchanged
        output.err(note)
    try:
        summary = verify_file(path)
    except Exception as error:  # the CLI edge: every failure is a message
        return _failed(output, error)
    if as_json:
        from cassette_cli.json_document import json_document

        output.out(json_document({"file": os.path.abspath(path), **summary}))
    else:
        from cassette_cli.reports import verify_line

        output.out(verify_line(summary))
    return 0


def run_inspect(command: InspectCommand, output: Output) -> int:
    """`inspect <file>`: summary lines, optional calls and tree, or the JSON document (CLI-6).

    A session log, or a directory holding session logs, gets its metadata-only report instead.
    """
    from cassette_cli.session_detect import directory_holds_session_logs, is_session_log

    if os.path.isdir(command.path) and directory_holds_session_logs(command.path):
        from cassette_cli.session_commands import run_session_directory

        return run_session_directory(
            command.path, as_json=command.json, show_calls=command.show_calls, output=output
        )
    if is_session_log(command.path):
        from cassette_cli.session_commands import run_session_file

        return run_session_file(
            command.path, as_json=command.json, show_calls=command.show_calls, output=output
        )
    from cassette_format import load_cassette, summarize

    from cassette_cli.inspection import call_documents, tree_calls
    from cassette_cli.json_document import json_document
    from cassette_cli.report_values import SummaryReport
    from cassette_cli.reports import row_lines, summary_lines
    from cassette_cli.terminal import palette_for
    from cassette_cli.tree import tree_lines

    try:
        cassette = load_cassette(command.path)
    except Exception as error:  # the CLI edge: every failure is a message
        return _failed(output, error)
    document: dict[str, object] = {}
    if cassette.source is not None:
        document["file"] = cassette.source
    document.update(summarize(cassette))
    if command.json:
        if command.show_calls:
            document["calls"] = call_documents(cassette)
        output.out(json_document(document))
        return 0
    for line in summary_lines(SummaryReport.from_document(document)):
        output.out(line)
    rows = tree_calls(cassette) if command.show_calls or command.tree else []
    if command.show_calls:
        for line in row_lines(rows):
            output.out(line)
    if command.tree:
        for line in tree_lines(rows, palette_for(command.color, output.stdout)):
            output.out(line)
    return 0


def run_diff(command: DiffCommand, output: Output) -> int:
    """`diff <expected> <actual>`: exit 0 when equivalent, else 2 (CLI-7).

    The expected file is loaded first, so when both fail the first one is reported (GAP-5).
    `--drift` follows the reference's output with the drift report (issue 25), as lines or,
    with `--json`, as its own document; `--format markdown` prints the Markdown report.
    """
    from cassette_format import load_cassette
    from cassette_topology import diff_cassettes

    from cassette_cli.json_document import json_document
    from cassette_cli.report_values import DiffReport
    from cassette_cli.reports import diff_report_lines

    try:
        expected = load_cassette(command.expected)
        actual = load_cassette(command.actual)
        diff = diff_cassettes(expected, actual)
        drift = None
        if command.drift or command.markdown:
            from cassette_topology.drift import drift_report

            drift = drift_report(expected.interactions, actual.interactions)
    except Exception as error:  # the CLI edge: every failure is a message
        return _failed(output, error)
    code = 0 if diff.equivalent else 2
    if command.markdown and drift is not None:
        from cassette_cli.markdown import markdown_report

        output.out(markdown_report(diff, drift, command.expected, command.actual))
        return code
    if command.json:
        # JSON only here, at the output
        output.out(json_document(diff.as_document() if drift is None else drift.as_document()))
        return code
    report = DiffReport.of(diff)
    for line in diff_report_lines(
        report, command.expected, command.actual, show_calls=command.show_calls
    ):
        output.out(line)
    if drift is not None:
        from cassette_topology.drift_terms import drift_lines

        for line in drift_lines(drift):
            output.out(line)
    return code
