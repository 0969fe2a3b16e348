"""`verify`/`inspect` on model-call session logs: load with the codec, print metadata only.

Failures are the codec's messages (file, physical line, rule), which never hold bodies; exit
codes are the cassettes' (0 verified, 1 invalid).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from cassette_provider.models.files import harvest_session_logs_sync, load_session_log

from cassette_cli.display import display
from cassette_cli.documents import documents
from cassette_cli.json_document import json_document
from cassette_cli.session_documents import directory_document, session_document, session_lines

if TYPE_CHECKING:
    from cassette_cli.terminal import Output

__all__ = [
    "run_session_directory",
    "run_session_file",
    "session_directory_verdict",
    "session_verdict",
]


def run_session_file(path: str, *, as_json: bool, show_calls: bool, output: Output) -> int:
    """Verify one session log (chain, schema) and print its script's metadata."""
    try:
        log = load_session_log(path)
    except Exception as error:  # the CLI edge: every failure is a message
        output.err(display(str(error)))
        return 1
    document = session_document(log)
    if as_json:
        output.out(json_document({"ok": True, **document}))
        return 0
    for line in session_lines(document, show_calls=show_calls):
        output.out(line)
    output.out(f"OK: session log verified ({len(log.calls)} call(s))")
    return 0


def run_session_directory(
    directory: str, *, as_json: bool, show_calls: bool, output: Output
) -> int:
    """Harvest a directory (highest generation per role), verify each log, report each session."""
    try:
        logs = harvest_session_logs_sync(directory)
    except Exception as error:  # the CLI edge: every failure is a message
        output.err(display(str(error)))
        return 1
    document = directory_document(directory, logs)
    if as_json:
        output.out(json_document({"ok": True, **document}))
        return 0
    output.out(f"Session directory: {display(os.path.abspath(directory))}")
    for session in documents(document, "sessions"):
        for line in session_lines(session, show_calls=show_calls):
            output.out(line)
    order = ", ".join(display(log.header.id) for log in logs)
    output.out(f"Harvest order (primary first): {order}")
    output.out(f"OK: {len(logs)} session log(s) verified")
    return 0


def session_verdict(path: str) -> tuple[dict[str, object] | None, str | None]:
    """One session log's summary for a many-file `verify`, or its failure message."""
    try:
        log = load_session_log(path)
    except Exception as error:  # a worker reports, it never crashes the run
        return None, str(error) or type(error).__name__
    document = session_document(log)
    document.pop("callList", None)
    return document, None


def session_directory_verdict(directory: str) -> tuple[dict[str, object] | None, str | None]:
    """A directory's harvest document for a many-file `verify`, or its failure message."""
    try:
        logs = harvest_session_logs_sync(directory)
    except Exception as error:  # reported as a FAIL line, never a crash
        return None, str(error) or type(error).__name__
    document = directory_document(directory, logs)
    for session in documents(document, "sessions"):
        if isinstance(session, dict):
            session.pop("callList", None)
    return document, None
