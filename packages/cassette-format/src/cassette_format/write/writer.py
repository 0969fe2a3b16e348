"""The append-only cassette writer (WRITE-1..10): locked, chained, serialized, thread-safe.

The core is synchronous: one `threading.Lock` guards seal + `os.write`, so appends from
any thread and any event loop (one per thread, several `asyncio.run`s in sequence, or sync
code) land one at a time, in the order they take the lock (WRITE-7). Appending one line of
a few KB to the page cache costs microseconds, far less than a thread hop, so the async
`append` runs the same code in place; only `open` and `close` (which fsync) go to a
worker thread. Each append gets its own sealed record or its own error. Beyond the
reference, a sequence, call key or group occurrence written twice is refused before it
reaches the file, so this writer never produces a cassette its loader rejects, and a line
no reader would accept (over the 16 MiB line bound, or not lossless JSON) is refused for
that call alone (`InteractionRefused`): an error line for the same call is written in its
place, the writer goes on and the other calls commit.

Beyond the reference, `create` and `truncate` never touch the target until a clean
close: they fill a partial sibling (`write/partial.py` names it), fsync it, rename it over the
target (`create` refuses to replace one) and fsync the directory. An interrupted
recording leaves the committed cassette byte-identical and its partial file beside it.
`append` writes in place. A failed write is cut back to the last complete record, and
before each append and at close the writer checks that its path still names its file
(device and inode) at the size it wrote, failing loudly otherwise. A clean close also
writes the tail seal (`read/tail_seal.py`). New files are created 0600 and exclusively, never
through a symlink (`write/safe_files.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import Self

from returns.result import Failure, Result, Success

from cassette_format.errors import (
    CassetteFormatError,
    InteractionRefused,
    format_error,
    value_or_raise,
)
from cassette_format.problem import FormatProblem
from cassette_format.read.lines import MAX_LINE_BYTES
from cassette_format.read.parse import read_cassette
from cassette_format.read.tail_seal import TailSeal
from cassette_format.records.cassette_file import CassetteFile
from cassette_format.records.model import (
    CassetteHeader,
    CassetteInteraction,
    InteractionBody,
    RecordedError,
    ResultErrorOutcome,
    StartErrorOutcome,
)
from cassette_format.records.policy import policy_changes
from cassette_format.write.chain import Sealed, WriterChain
from cassette_format.write.commit import Commit, WriteMode, destination, open_refusal, place
from cassette_format.write.header import validate_header
from cassette_format.write.lock import WriterLock, acquire_writer_lock
from cassette_format.write.partial import new_partial_path
from cassette_format.write.safe_files import (
    PRIVATE_MODE,
    create_new,
    kept_mode,
    sync_directory,
    write_all,
)
from cassette_format.write.seal import LOSSY, header_line
from cassette_format.write.tail_seal import remove_seal, write_seal

__all__ = ["CassetteWriter", "InteractionRefused", "WriteMode"]


def _check_append_compatible(existing: CassetteHeader, requested: CassetteHeader) -> None:
    """WRITE-4: the first differing policy field, compared as canonical text."""
    changed = policy_changes(existing, requested)
    if changed:
        raise format_error(
            FormatProblem(
                f"cannot append: existing header {changed[0]} differs from configured value"
            )
        )


def _within_bounds(sealed: Sealed) -> Result[Sealed, FormatProblem]:
    """The line, unless a reader would refuse it as too long (FMT-3's bound, `read/lines`)."""
    size = len(sealed.line) - 1  # without its `\n`
    if size <= MAX_LINE_BYTES:
        return Success(sealed)
    return Failure(
        FormatProblem(
            f"interaction sequence {sealed.interaction.sequence} was not written: its line "
            f"would be {size} bytes, longer than the {MAX_LINE_BYTES}-byte line bound "
            "every cassette reader enforces",
            per_call=True,
        )
    )


def _substitute(body: InteractionBody, refusal: FormatProblem) -> InteractionBody:
    """The same call ended as an error line naming the refusal (metadata only, no values)."""
    error = RecordedError(format_error(refusal).name, refusal.message, refusal.code)
    outcome = ResultErrorOutcome(error) if body.published else StartErrorOutcome(error)
    return dataclasses.replace(body, outcome=outcome)


def _per_call(problem: FormatProblem, body: InteractionBody) -> FormatProblem:
    """A value no reader accepts fails its own call only; any other problem stops the writer."""
    if problem.message == LOSSY and not problem.per_call:
        return FormatProblem(
            f"interaction sequence {body.sequence} was not written: {LOSSY}", per_call=True
        )
    return problem


class CassetteWriter:
    """A held cassette file: `open` it, `append` interactions, `close` it (idempotent).

    Every method may be called from any thread; the async ones from any event loop. The
    `*_blocking` twins serve sync harnesses (`with CassetteWriter.open_blocking(...)`).
    """

    def __init__(
        self,
        path: str,
        fd: int,
        lock: WriterLock,
        header: CassetteHeader,
        existing: Sequence[CassetteInteraction],
        *,
        chain: WriterChain,
        commit: Commit | None = None,
    ) -> None:
        self.path = path
        #: The file being filled until a clean close renames it over `path` (None: in place).
        self.partial_path = None if commit is None else commit.partial
        self.header = header
        self.existing_interactions: tuple[CassetteInteraction, ...] = tuple(existing)
        self.next_sequence = max((i.sequence for i in existing), default=0) + 1
        self._fd = fd
        self._lock = lock
        self._commit = commit
        self._interrupted = False
        opened = os.fstat(fd)
        self._identity = (opened.st_dev, opened.st_ino)
        self._size = opened.st_size  # the end of the last complete record
        self._subject = (
            f'cassette "{path}"'
            if commit is None
            else f'cassette "{path}" (partial recording "{commit.partial}")'
        )
        self._chain = chain  # sealer + links + compact keys: nothing else is kept per call
        self._count = len(existing)
        self._mutex = threading.Lock()  # seal + write, one append at a time
        self._closing = threading.Lock()  # one close does the work, the others wait for it
        self._poison: CassetteFormatError | None = None
        self._closed = False
        self._close_errors: tuple[BaseException, ...] | None = None

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], header: CassetteHeader, mode: WriteMode
    ) -> Self:
        """Validate the header, lock, then create, truncate or append (WRITE-1..6)."""
        return await asyncio.to_thread(cls.open_blocking, path, header, mode)

    @classmethod
    def open_blocking(
        cls, path: str | os.PathLike[str], header: CassetteHeader, mode: WriteMode
    ) -> Self:
        """`open` for synchronous callers (it blocks on disk I/O)."""
        match validate_header(header):
            case Failure(FormatProblem() as problem):
                raise format_error(problem)
        absolute = os.path.abspath(os.fspath(path))
        directory = os.path.dirname(absolute)
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as error:
            raise format_error(
                FormatProblem(
                    f'cannot create the directory of cassette "{absolute}": {error.strerror}',
                    cause=error,
                )
            ) from error
        lock = acquire_writer_lock(absolute)
        try:
            return cls._open_locked(absolute, header, mode, lock)
        except BaseException as error:
            try:
                lock.release()
            except CassetteFormatError as release_error:
                raise format_error(
                    FormatProblem(
                        f'cannot open cassette "{absolute}" and release its writer lock',
                        cause=BaseExceptionGroup(
                            "cassette open and writer lock release failed", [error, release_error]
                        ),
                    )
                ) from error
            raise

    @classmethod
    def _open_locked(
        cls, absolute: str, header: CassetteHeader, mode: WriteMode, lock: WriterLock
    ) -> Self:
        if mode == "append":
            match read_cassette(absolute):
                case Success(CassetteFile() as existing):
                    return cls._open_append(absolute, header, lock, existing)
                case Failure(FormatProblem() as problem) if not isinstance(
                    problem.cause, FileNotFoundError
                ):
                    raise format_error(problem)
            # A missing append target starts a new cassette in place (WRITE-3): every
            # complete line of an interrupted first run is kept for the next append.
            try:
                fd = create_new(absolute, readable=True)  # the chain reads its lines back
            except OSError as error:
                raise open_refusal(absolute, mode, error) from error
            try:
                lock.hold_file(absolute)  # a hard link made from now on is the same writer
            except BaseException:
                os.close(fd)
                with contextlib.suppress(OSError):
                    os.unlink(absolute)
                raise
            return cls._started(absolute, fd, lock, header, None)
        target = destination(absolute, mode)
        commit = Commit(new_partial_path(target), target, replace=mode == "truncate")
        try:
            # truncate keeps the replaced file's mode bits; a new cassette is private
            fd = create_new(
                commit.partial,
                kept_mode(target) if commit.replace else PRIVATE_MODE,
                readable=True,  # the chain reads its lines back
            )
        except OSError as error:
            raise open_refusal(absolute, mode, error) from error
        return cls._started(absolute, fd, lock, header, commit)

    @classmethod
    def _started(
        cls,
        absolute: str,
        fd: int,
        lock: WriterLock,
        header: CassetteHeader,
        commit: Commit | None,
    ) -> Self:
        """Write and fsync the header of a new file; on failure close it (WRITE-3)."""
        try:
            match header_line(header):
                case Success(bytes() as line):
                    write_all(fd, line)
                case Failure(FormatProblem() as problem):
                    raise format_error(problem)
            os.fsync(fd)
            chain = value_or_raise(WriterChain.resume(fd))
        except (OSError, CassetteFormatError) as error:
            with contextlib.suppress(OSError):
                os.close(fd)
            if commit is not None:
                with contextlib.suppress(OSError):
                    os.unlink(commit.partial)  # nothing was recorded yet
            raise format_error(
                FormatProblem(f'cannot initialize cassette "{absolute}"', cause=error)
            ) from error
        return cls(absolute, fd, lock, header, (), chain=chain, commit=commit)

    @classmethod
    def _open_append(
        cls,
        absolute: str,
        requested: CassetteHeader,
        lock: WriterLock,
        existing: CassetteFile,
    ) -> Self:
        _check_append_compatible(existing.header, requested)
        try:
            fd = os.open(absolute, os.O_RDWR | os.O_APPEND | getattr(os, "O_CLOEXEC", 0))
        except OSError as error:
            raise format_error(
                FormatProblem(f'cannot open cassette "{absolute}" in append mode', cause=error)
            ) from error
        try:
            size = os.fstat(fd).st_size
            if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
                write_all(fd, b"\n")  # WRITE-5: repair a missing trailing newline
            chain = value_or_raise(WriterChain.resume(fd))
        except (OSError, CassetteFormatError) as error:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise format_error(
                FormatProblem(f'cannot prepare cassette "{absolute}" for append', cause=error)
            ) from error
        return cls(absolute, fd, lock, existing.header, existing.interactions, chain=chain)

    async def append(self, body: InteractionBody) -> CassetteInteraction:
        """Chain, validate and write one interaction, in call order (WRITE-7, WRITE-8).

        Runs in place on the calling loop (a page-cache write of one line, no thread hop).
        """
        return self.append_blocking(body)

    def append_blocking(self, body: InteractionBody) -> CassetteInteraction:
        """`append` for any thread: the sealed record, or this append's error.

        A format error stops the writer (later appends get the same error, WRITE-8) unless
        it is an `InteractionRefused`; any other exception fails only its own append, as
        sealing changes nothing.
        """
        if self._closed:
            raise format_error(FormatProblem("cassette writer is closed"))
        with self._mutex:
            if self._closed:
                raise format_error(FormatProblem("cassette writer is closed"))
            if self._poison is None:
                self._poison = self._file_changed()
            if self._poison is not None:
                raise self._poison
            match self._chain.seal(body).bind(_within_bounds):
                case Success(Sealed() as sealed):
                    return self._write_sealed(sealed)
                case Failure(FormatProblem() as problem):
                    problem = _per_call(problem, body)
                    if not problem.per_call:
                        self._poison = format_error(problem)
                        raise self._poison
            match self._chain.seal(_substitute(body, problem)).bind(_within_bounds):
                case Success(Sealed() as substitute):  # the call still ends as a line
                    self._write_sealed(substitute)
            raise format_error(problem)

    def _write_sealed(self, sealed: Sealed) -> CassetteInteraction:
        """Link and write one sealed line (the mutex is held); a failed write stops the writer."""
        self._chain.accept(sealed, self._size)
        try:
            write_all(self._fd, sealed.line)
        except OSError as error:
            self._poison = self._rolled_back(error)  # the chain is never used again
            raise self._poison from error
        self._chain.written()
        self._size += len(sealed.line)
        self._count += 1
        return sealed.interaction

    def _rolled_back(self, error: OSError) -> CassetteFormatError:
        """Cut the file back to its last complete record after a failed write; the error."""
        try:
            os.ftruncate(self._fd, self._size)
        except OSError as truncate_error:
            return format_error(
                FormatProblem(
                    f"cannot write {self._subject} nor cut it back to its last complete record "
                    f"at byte {self._size}",
                    cause=BaseExceptionGroup(
                        "cassette write and roll-back failed", [error, truncate_error]
                    ),
                )
            )
        return format_error(
            FormatProblem(
                f"cannot write {self._subject}: {error.strerror or error}; "
                f"it was cut back to its last complete record at byte {self._size}",
                cause=error,
            )
        )

    def _file_changed(self) -> CassetteFormatError | None:
        """Why the path no longer names this writer's file at the size it wrote, if it does not.

        Compares the path's device and inode with the open descriptor's, and the file's size
        with the end of the last record written, so a replaced, removed or truncated file
        (or one another process wrote to) stops the recording loudly instead of silently.
        One `stat` of the path says both: once it names the descriptor's inode, its size is
        that file's size (issue 24: no second system call per line).
        """
        named = self.path if self._commit is None else self._commit.partial
        try:
            found = os.stat(named)
        except FileNotFoundError:
            return format_error(
                FormatProblem(
                    f"{self._subject} was removed while being written; the recording stopped"
                )
            )
        except OSError as error:
            return format_error(FormatProblem(f"cannot check {self._subject}", cause=error))
        if (found.st_dev, found.st_ino) != self._identity:
            return format_error(
                FormatProblem(
                    f"{self._subject} no longer names the file this writer opened "
                    "(it was replaced or moved while being written); the recording stopped"
                )
            )
        if found.st_size != self._size:
            return format_error(
                FormatProblem(
                    f"{self._subject} changed size under its writer (expected {self._size} bytes, "
                    f"found {found.st_size}): another process truncated or wrote it; "
                    "the recording stopped"
                )
            )
        return None

    def mark_interrupted(self) -> None:
        """Make the coming close keep the partial file and leave the target as it was."""
        self._interrupted = True

    async def abandon(self) -> None:
        """Close as an interrupted recording: earlier appends land in the partial file only."""
        self.mark_interrupted()
        await self.close()

    def abandon_blocking(self) -> None:
        """`abandon` for synchronous callers."""
        self.mark_interrupted()
        self.close_blocking()

    async def close(self) -> None:
        """Wait for an append in progress, fsync, commit, close, release (WRITE-9); idempotent.

        In `create`/`truncate` mode a clean close renames the partial file over the target;
        after a failed append or `mark_interrupted` the partial file stays and the target
        is untouched. The work runs in a worker thread and finishes even if the caller is
        cancelled; every call raises the same outcome.
        """
        self._closed = True
        await asyncio.to_thread(self.close_blocking)

    def close_blocking(self) -> None:
        """`close` for any thread; the first call does the work, later ones see its outcome."""
        self._closed = True
        with self._closing:
            if self._close_errors is None:
                with self._mutex:  # an append in progress lands first
                    errors: list[BaseException] = []
                    if self._poison is not None:
                        errors.append(self._poison)
                    errors.extend(self._close_files())
                self._close_errors = tuple(errors)
            errors = list(self._close_errors)
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise format_error(
                FormatProblem(
                    f'cannot close cassette writer "{self.path}"',
                    cause=BaseExceptionGroup("cassette writer close failed", errors),
                )
            )

    def _close_files(self) -> list[BaseException]:
        errors: list[BaseException] = []
        if self._poison is None:
            self._poison = self._file_changed()
            if self._poison is not None:
                errors.append(self._poison)
        for step in (os.fsync, os.close):
            try:
                step(self._fd)
            except OSError as error:
                errors.append(
                    format_error(FormatProblem(f'cannot close cassette "{self.path}"', cause=error))
                )
        clean = not errors and self._poison is None and not self._interrupted
        if clean:
            errors.extend(self._commit_blocking())
        try:
            self._lock.release()
        except CassetteFormatError as error:
            errors.append(error)
        return errors

    def _commit_blocking(self) -> list[BaseException]:
        """Place the recording (a partial file renamed over the target), then seal it."""
        commit = self._commit
        sealed_path = self.path if commit is None else commit.destination
        if commit is not None:
            try:
                remove_seal(commit.destination)  # the old seal never outlives its cassette
                place(commit)
            except FileExistsError as error:
                return [
                    format_error(
                        FormatProblem(
                            f'cannot commit cassette "{self.path}": it was created by someone else '
                            f'while recording; the recording stays in "{commit.partial}"',
                            cause=error,
                        )
                    )
                ]
            except OSError as error:
                return [
                    format_error(
                        FormatProblem(
                            f'cannot commit cassette "{self.path}"; '
                            f'the recording stays in "{commit.partial}"',
                            cause=error,
                        )
                    )
                ]
            self.partial_path = None
        seal = TailSeal(self.header.cassette_id, self._count, self._chain.previous_hash)
        try:
            if commit is not None:
                sync_directory(os.path.dirname(commit.destination))
            write_seal(sealed_path, seal)
        except OSError as error:
            return [
                format_error(
                    FormatProblem(f'cannot seal cassette "{self.path}" after commit', cause=error)
                )
            ]
        return []

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self.mark_interrupted()  # an exception ends the recording: keep the target
        self.close_blocking()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc_type is not None:
            self.mark_interrupted()  # an exception ends the recording: keep the target
        await self.close()
