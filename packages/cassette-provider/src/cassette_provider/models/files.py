"""Reading, harvesting and writing session-log files (the I/O around the pure codec)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable
from pathlib import Path

from cassette_topology.sessions import (
    SESSION_LOG_READ,
    SessionError,
    SessionLog,
    encode_session_log,
    next_generation_names,
    order_primary_first,
    parse_session_log,
    parse_session_log_name,
    select_session_log_paths,
    stale_role_names,
)

from cassette_provider.models.errors import raise_error, value_or_raise


def _read_bytes(path: Path) -> bytes:
    """Read a whole file, converting OS failures into the stable read error."""
    try:
        return path.read_bytes()
    except OSError:
        raise_error(SessionError(SESSION_LOG_READ, f'cannot read session log "{path.resolve()}"'))


def load_session_log(path: str | os.PathLike[str]) -> SessionLog:
    """Read and verify one session log; raises SessionLogFormatError naming the line."""
    resolved = Path(path).resolve()
    parsed = parse_session_log(_read_bytes(resolved), source=str(resolved))
    return value_or_raise(parsed.alt(lambda error: _located(error, resolved)))


def _located(error: SessionError, path: Path) -> SessionError:
    """Prefix a parse error with the file it came from."""
    return SessionError(
        error.code, f"{path}: {error.message}", error.session, error.call_index, error.line
    )


async def read_session_log(path: str | os.PathLike[str]) -> SessionLog:
    """Read and verify one session log off the event loop."""
    return await asyncio.to_thread(load_session_log, path)


def _listing(directory: Path) -> list[str]:
    """Every file under a directory as a relative POSIX path, sorted."""
    found: list[str] = []
    for folder, _dirs, files in os.walk(directory):
        base = Path(folder).relative_to(directory)
        found.extend((base / name).as_posix() for name in files)
    return sorted(found)


def harvest_session_logs_sync(directory: str | os.PathLike[str]) -> tuple[SessionLog, ...]:
    """Select the highest generation per role in every directory below, primary first."""
    root = Path(directory)
    if not root.is_dir():
        raise_error(
            SessionError(SESSION_LOG_READ, f'cannot read session directory "{root.resolve()}"')
        )
    logs = [load_session_log(root / path) for path in select_session_log_paths(_listing(root))]
    ordered = order_primary_first(logs)
    return value_or_raise(ordered.alt(lambda error: _located(error, root.resolve())))


async def harvest_session_logs(directory: str | os.PathLike[str]) -> tuple[SessionLog, ...]:
    """Harvest every session log under a directory, primary first (LLMREPLAY-9)."""
    return await asyncio.to_thread(harvest_session_logs_sync, directory)


def _write_atomically(path: Path, text: str) -> None:
    """Write through a temporary sibling and rename, so readers never see half a log."""
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8", newline="")
    os.replace(temporary, path)


def write_session_logs_sync(
    directory: str | os.PathLike[str], logs: Iterable[SessionLog], *, prune_stale: bool = True
) -> tuple[Path, ...]:
    """Write logs primary-first as the next generation of each role (LLMREPLAY-10).

    Older generations of roles still produced are kept; with `prune_stale`, logs of child
    roles the fresh recording no longer produces are removed so replay does not expect them.
    """
    root = Path(directory)
    root.mkdir(parents=True, exist_ok=True)
    ordered = value_or_raise(order_primary_first(logs))
    texts = [value_or_raise(encode_session_log(log)) for log in ordered]
    existing = [p.name for p in root.iterdir() if parse_session_log_name(p.name) is not None]
    names = next_generation_names(existing, len(ordered))
    written: list[Path] = []
    for name, text in zip(names, texts, strict=True):
        _write_atomically(root / name, text)
        written.append(root / name)
    if prune_stale:
        for stale in stale_role_names(existing, len(ordered)):
            (root / stale).unlink(missing_ok=True)
    return tuple(written)


async def write_session_logs(
    directory: str | os.PathLike[str], logs: Iterable[SessionLog], *, prune_stale: bool = True
) -> tuple[Path, ...]:
    """Write session logs off the event loop; see `write_session_logs_sync`."""
    return await asyncio.to_thread(
        write_session_logs_sync, directory, tuple(logs), prune_stale=prune_stale
    )
