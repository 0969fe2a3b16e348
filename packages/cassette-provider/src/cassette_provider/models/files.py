"""Reading, harvesting and writing session-log files (the I/O around the pure codec)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from cassette_format.problem import FormatProblem
from cassette_format.read.open import open_regular
from cassette_format.sessions import SESSION_LOG_WRITE
from cassette_format.write.safe_files import replace_atomically
from cassette_topology.sessions import (
    SESSION_LOG_READ,
    SessionLog,
    encode_session_log,
    next_generation_names,
    order_primary_first,
    parse_session_log,
    parse_session_log_name,
    select_session_log_paths,
    stale_role_names,
)

from cassette_provider.contract.errors import raise_session_error, session_value_or_raise


def _resolved(path: str | os.PathLike[str]) -> Path:
    """The absolute, resolved path; a name no file can have (a NUL) is only made absolute."""
    try:
        return Path(path).resolve()
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


def _read_bytes(path: Path) -> bytes:
    """Read a whole regular file, converting OS failures into the stable read error.

    The format's non-blocking open refuses a FIFO, a device or a directory instead of
    waiting for a writer or reading forever (`/dev/zero`), so a harvest never hangs.
    """
    try:
        with open_regular(str(path)) as stream:
            return stream.read()
    except OSError:
        raise_session_error(
            FormatProblem(f'cannot read session log "{path}"', code=SESSION_LOG_READ)
        )


def load_session_log(path: str | os.PathLike[str]) -> SessionLog:
    """Read and verify one session log; raises SessionLogFormatError naming the line."""
    resolved = _resolved(path)
    parsed = parse_session_log(_read_bytes(resolved), source=str(resolved))
    return session_value_or_raise(parsed.alt(lambda error: _located(error, resolved)))


def _located(error: FormatProblem, path: Path) -> FormatProblem:
    """Prefix a parse error with the file it came from."""
    return FormatProblem(
        f"{path}: {error.message}",
        code=error.code,
        session=error.session,
        call_index=error.call_index,
        line=error.line,
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
        raise_session_error(
            FormatProblem(
                f'cannot read session directory "{_resolved(root)}"', code=SESSION_LOG_READ
            )
        )
    logs = [load_session_log(root / path) for path in select_session_log_paths(_listing(root))]
    ordered = order_primary_first(logs)
    return session_value_or_raise(ordered.alt(lambda error: _located(error, _resolved(root))))


async def harvest_session_logs(directory: str | os.PathLike[str]) -> tuple[SessionLog, ...]:
    """Harvest every session log under a directory, primary first (LLMREPLAY-9)."""
    return await asyncio.to_thread(harvest_session_logs_sync, directory)


def _write_atomically(path: Path, text: str) -> None:
    """Write through a fresh, unpredictable temporary sibling and rename (never half a log).

    The temporary file is created exclusively and never through a symlink; a new log is
    0600 (it holds prompts and answers), a replaced one keeps its mode (issue 26).
    """
    try:
        replace_atomically(str(path), text.encode("utf-8"), purpose="tmp")
    except OSError:
        raise_session_error(
            FormatProblem(f'cannot write session log "{path}"', code=SESSION_LOG_WRITE)
        )


def owned_directory(directory: str | os.PathLike[str]) -> Path:
    """`directory`, created if missing (0700), refused when its name is a symbolic link.

    Logs are never written through a link another user could have planted (issue 26).
    """
    root = Path(directory)
    if root.is_symlink():
        raise_session_error(
            FormatProblem(
                f'session directory "{root}" is a symbolic link and is never followed; '
                "remove it if it is not yours",
                code=SESSION_LOG_WRITE,
            )
        )
    try:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        raise_session_error(
            FormatProblem(f'cannot create session directory "{root}"', code=SESSION_LOG_WRITE)
        )
    return root


def write_session_logs_sync(
    directory: str | os.PathLike[str], logs: Iterable[SessionLog], *, prune_stale: bool = True
) -> tuple[Path, ...]:
    """Write logs primary-first as the next generation of each role (LLMREPLAY-10).

    Older generations of roles still produced are kept; with `prune_stale`, logs of child
    roles the fresh recording no longer produces are removed so replay does not expect them.
    """
    root = owned_directory(directory)
    ordered = session_value_or_raise(order_primary_first(logs))
    texts = [session_value_or_raise(encode_session_log(log)) for log in ordered]
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


def replace_session_logs_sync(
    directory: str | os.PathLike[str], logs: Iterable[SessionLog]
) -> tuple[Path, ...]:
    """Replace every log in `directory` with `logs` (the model-sessions `rewrite` mode).

    The logs are staged in a fresh `mkdtemp` directory beside it (unpredictable, 0700, so
    nothing planted at a fixed staging name is followed), which then takes its place,
    keeping the old directory's mode. A symlink at `directory` is refused (issue 26).
    """
    root = Path(directory)
    owned_directory(root.parent)
    if root.is_symlink():
        owned_directory(root)  # raises: never replace a link another user could have planted
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{root.name}.rewrite-", dir=root.parent))
    except OSError:
        raise_session_error(
            FormatProblem(f'cannot stage session logs beside "{root}"', code=SESSION_LOG_WRITE)
        )
    try:
        written = write_session_logs_sync(staging, logs)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(staging, stat.S_IMODE(os.stat(root, follow_symlinks=False).st_mode))
            shutil.rmtree(root)
        os.rename(staging, root)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
        raise_session_error(
            FormatProblem(f'cannot replace session directory "{root}"', code=SESSION_LOG_WRITE)
        )
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return tuple(root / path.name for path in written)
