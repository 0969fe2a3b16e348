"""`verify` over many cassettes: checked in parallel worker processes, one line per file.

Workers run the format package's streaming verifier on chunks of paths and send back small
verdicts (never bodies). Lines are printed in argument order once all verdicts are in; a
progress bar goes to stderr only when it is a terminal and the output is not JSON.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, TextIO

from cassette_cli.cassette_paths import expand_paths
from cassette_cli.display import display
from cassette_cli.documents import count_text
from cassette_cli.json_document import json_document
from cassette_cli.terminal import Output, Palette, is_terminal, palette_for

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from cassette_cli.arguments import VerifyCommand

__all__ = ["FileVerdict", "check_files", "run_verify_many"]

_MAX_CHUNK: Final = 8
_BAR_WIDTH: Final = 30


@dataclass(frozen=True, slots=True)
class FileVerdict:
    """One file's verdict: its summary when valid, else the failure message."""

    path: str
    absolute: str
    summary: dict[str, object] | None
    error: str | None

    @property
    def ok(self) -> bool:
        """True when the file verified."""
        return self.error is None


def check_file(path: str) -> FileVerdict:
    """Verify one file in this process; every failure becomes its message (never raises)."""
    from cassette_format import verify_file

    from cassette_cli.session_detect import is_session_log

    absolute = os.path.abspath(path)
    if is_session_log(path):  # judged by its own header; session support loads only now
        from cassette_cli.session_commands import session_verdict

        found, problem = session_verdict(path)
        return FileVerdict(path, absolute, found, problem)
    try:
        summary: dict[str, object] = dict(verify_file(path))
    except Exception as error:  # a worker reports, it never crashes the run
        return FileVerdict(path, absolute, None, str(error) or type(error).__name__)
    return FileVerdict(path, absolute, summary, None)


def check_files(paths: Sequence[str]) -> list[FileVerdict]:
    """Verify a chunk of files in one worker task (the pool already uses the CPUs)."""
    return [check_file(path) for path in paths]


def _chunks(paths: Sequence[str], jobs: int) -> list[tuple[str, ...]]:
    """Enough chunks to balance the load, few enough to keep inter-process traffic small."""
    size = max(1, min(_MAX_CHUNK, math.ceil(len(paths) / (jobs * 8))))
    return [tuple(paths[start : start + size]) for start in range(0, len(paths), size)]


def _context() -> BaseContext:
    """fork when it is safe (no other threads), else spawn."""
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


@dataclass(slots=True)
class _Progress:
    """A one-line progress bar redrawn in place on a terminal."""

    stream: TextIO | None
    total: int
    done: int = 0

    def advance(self, count: int) -> None:
        if self.stream is None:
            return
        self.done += count
        filled = self.done * _BAR_WIDTH // max(1, self.total)
        bar = "#" * filled + "." * (_BAR_WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self.done}/{self.total}")
        self.stream.flush()

    def clear(self) -> None:
        if self.stream is not None:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _verify_all(
    paths: Sequence[str], jobs: int, progress: Callable[[int], None]
) -> list[FileVerdict]:
    if jobs <= 1 or len(paths) <= 1:
        verdicts = []
        for path in paths:
            verdicts.append(check_file(path))
            progress(1)
        return verdicts
    chunks = _chunks(paths, jobs)
    by_chunk: dict[int, list[FileVerdict]] = {}
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=_context()) as pool:
        futures: dict[Future[list[FileVerdict]], int] = {
            pool.submit(check_files, chunk): index for index, chunk in enumerate(chunks)
        }
        for future in as_completed(futures):
            result = future.result()
            by_chunk[futures[future]] = result
            progress(len(result))
    return [verdict for index in range(len(chunks)) for verdict in by_chunk[index]]


def _interactions(verdict: FileVerdict) -> str:
    return count_text(verdict.summary or {}, "interactions")


def _line(verdict: FileVerdict, palette: Palette) -> str:
    summary = verdict.summary or {}
    if verdict.ok and summary.get("kind") == "session-log":
        session_id = summary.get("sessionId", "")
        shown_session = display(session_id) if isinstance(session_id, str) else ""
        return (
            f"{palette.paint('OK  ', 'good')}  {display(verdict.path)}  "
            f"session log, {count_text(summary, 'calls')} call(s)  ({shown_session})"
        )
    if verdict.ok:
        cassette_id = (verdict.summary or {}).get("cassetteId", "")
        shown_id = display(cassette_id) if isinstance(cassette_id, str) else ""
        return (
            f"{palette.paint('OK  ', 'good')}  {display(verdict.path)}  "
            f"{_interactions(verdict)} interaction(s)  ({shown_id})"
        )
    return (
        f"{palette.paint('FAIL', 'bad')}  {display(verdict.path)}  {display(verdict.error or '')}"
    )


def _document(
    verdicts: Sequence[FileVerdict], empty: Sequence[tuple[str, str]]
) -> dict[str, object]:
    files: list[dict[str, object]] = []
    for verdict in verdicts:
        if verdict.ok:
            files.append({"file": verdict.absolute, "ok": True, "summary": verdict.summary})
        else:
            files.append({"file": verdict.absolute, "ok": False, "error": verdict.error})
    files.extend({"file": argument, "ok": False, "error": reason} for argument, reason in empty)
    failed = sum(1 for entry in files if entry["ok"] is not True)
    return {
        "cassettes": len(files),
        "verified": len(files) - failed,
        "failed": failed,
        "files": files,
    }


@dataclass(frozen=True, slots=True)
class _SessionDirectory:
    """A directory argument's harvest: its metadata document, or the failure message."""

    argument: str
    document: dict[str, object] | None
    error: str | None


def _session_directories(arguments: Sequence[str]) -> list[_SessionDirectory]:
    """Harvest every directory argument that holds session logs (none: nothing is loaded)."""
    from cassette_cli.session_detect import directory_holds_session_logs

    harvested: list[_SessionDirectory] = []
    for argument in arguments:
        if not (os.path.isdir(argument) and directory_holds_session_logs(argument)):
            continue
        from cassette_cli.session_commands import session_directory_verdict

        document, problem = session_directory_verdict(argument)
        harvested.append(_SessionDirectory(argument, document, problem))
    return harvested


def _session_directory_line(directory: _SessionDirectory, palette: Palette) -> str:
    if directory.document is None:
        return (
            f"{palette.paint('FAIL', 'bad')}  {display(directory.argument)}  "
            f"{display(directory.error or '')}"
        )
    order = directory.document.get("harvestOrder")
    ids = [display(item) for item in order] if isinstance(order, list) else []
    return (
        f"{palette.paint('OK  ', 'good')}  {display(directory.argument)}  "
        f"{len(ids)} session log(s), harvest order: {', '.join(ids)}"
    )


def _session_directory_documents(harvested: Sequence[_SessionDirectory]) -> list[object]:
    return [
        {"directory": os.path.abspath(item.argument), "ok": True, **item.document}
        if item.document is not None
        else {"directory": os.path.abspath(item.argument), "ok": False, "error": item.error}
        for item in harvested
    ]


def run_verify_many(command: VerifyCommand, output: Output) -> int:
    """Verify every cassette the arguments name; exit 1 if any fails or an argument names none.

    Directory arguments holding session logs are also harvested and reported; their lines and
    JSON member appear only then, so cassette-only output stays the reference's.
    """
    sessions = _session_directories(command.paths)
    session_arguments = {item.argument for item in sessions}
    expansion = expand_paths(command.paths)
    expansion = type(expansion)(
        expansion.files,
        tuple(entry for entry in expansion.empty if entry[0] not in session_arguments),
    )
    sessions_failed = sum(1 for item in sessions if item.document is None)
    paths = expansion.files
    jobs = command.jobs if command.jobs is not None else (os.cpu_count() or 1)
    show_progress = not command.json and is_terminal(output.stderr) and len(paths) > 1
    progress = _Progress(output.stderr if show_progress else None, len(paths))
    try:
        verdicts = _verify_all(paths, jobs, progress.advance)
    finally:
        progress.clear()
    from cassette_cli.incomplete import incomplete_notes

    for verdict in verdicts:  # stderr only, so the documents and lines stay as they are
        for note in incomplete_notes(verdict.path):
            output.err(note)
    if command.json:
        document = _document(verdicts, expansion.empty)
        if sessions:
            document["sessionDirectories"] = _session_directory_documents(sessions)
        output.out(json_document(document))
        return 0 if document["failed"] == 0 and sessions_failed == 0 else 1
    palette = palette_for(command.color, output.stdout)
    for verdict in verdicts:
        output.out(_line(verdict, palette))
    for argument, reason in expansion.empty:
        output.out(f"{palette.paint('FAIL', 'bad')}  {display(argument)}  {reason}")
    failed = sum(1 for verdict in verdicts if not verdict.ok) + len(expansion.empty)
    total = len(verdicts) + len(expansion.empty)
    for directory in sessions:
        output.out(_session_directory_line(directory, palette))
    if total or not sessions:
        summary = f"{total} cassette(s): {total - failed} verified, {failed} failed"
        output.out(palette.paint(summary, "bad" if failed else "good"))
    if sessions:
        verified = len(sessions) - sessions_failed
        line = (
            f"{len(sessions)} session directory(ies): {verified} verified, {sessions_failed} failed"
        )
        output.out(palette.paint(line, "bad" if sessions_failed else "good"))
    return 1 if failed or sessions_failed else 0
