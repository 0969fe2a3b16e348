"""The append-only cassette writer (WRITE-1..10): locked, chained, serialized, asyncio-safe.

Appends join a FIFO queue. One drain task takes everything queued so far as a batch and
seals, validates and writes it in a worker thread (`asyncio.to_thread`, one write call
per batch), so the event loop never blocks on I/O and concurrent appends share one
thread hop instead of paying one each. Each append still gets its own sealed record or
its own error, in call order. Beyond the reference, a sequence, call key or group
occurrence written twice is refused before it reaches the file, so this writer never
produces a cassette its loader rejects.

Beyond the reference, `create` and `truncate` never touch the target until a clean
close: they fill a partial sibling (`partial.py` names it), fsync it, rename it over the
target (`create` refuses to replace one) and fsync the directory. An interrupted
recording leaves the committed cassette byte-identical and its partial file beside it.
`append` writes in place. A failed write is cut back to the last complete record, and
before each batch and at close the writer checks that its path still names its file
(device and inode) at the size it wrote, failing loudly otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Self

from returns.functions import identity
from returns.result import Failure, Success

from cassette_format.errors import CassetteFormatError
from cassette_format.read.parse import read_cassette
from cassette_format.records.cassette_file import CassetteFile
from cassette_format.records.model import CassetteHeader, CassetteInteraction, InteractionBody
from cassette_format.records.policy import policy_changes
from cassette_format.result_edge import or_raise
from cassette_format.write.chain import Sealed, WriterChain
from cassette_format.write.header import validate_header
from cassette_format.write.lock import WriterLock, acquire_writer_lock
from cassette_format.write.partial import new_partial_path
from cassette_format.write.seal import header_line

__all__ = ["CassetteWriter", "WriteMode"]

WriteMode = Literal["create", "truncate", "append"]


def _check_append_compatible(existing: CassetteHeader, requested: CassetteHeader) -> None:
    """WRITE-4: the first differing policy field, compared as canonical text."""
    changed = policy_changes(existing, requested)
    if changed:
        raise CassetteFormatError(
            f"cannot append: existing header {changed[0]} differs from configured value"
        )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


@dataclass(frozen=True, slots=True)
class _Commit:
    """Where a partial recording goes on a clean close, and whether it may replace a file."""

    partial: str
    destination: str
    replace: bool


#: errno values of file systems without hard links: `create` then checks and renames.
_NO_LINKS = frozenset({errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.EXDEV})


def _open_refusal(absolute: str, mode: WriteMode, cause: OSError) -> CassetteFormatError:
    return CassetteFormatError(f'cannot open cassette "{absolute}" in {mode} mode', cause=cause)


def _destination(absolute: str, mode: WriteMode) -> str:
    """The real file a partial recording replaces: symlinks followed, so a link stays one.

    `create` refuses any existing name (a dangling symlink too); `truncate` refuses what it
    could not have truncated in place: a non-regular file or one it may not write.
    """
    destination = os.path.realpath(absolute)
    if mode == "create":
        if os.path.lexists(absolute):
            raise _open_refusal(
                absolute, mode, FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), absolute)
            )
        return destination
    try:
        found = os.stat(destination)
    except FileNotFoundError:
        return destination
    except OSError as error:
        raise _open_refusal(absolute, mode, error) from error
    if not stat.S_ISREG(found.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(found.st_mode) else errno.EINVAL
        raise _open_refusal(absolute, mode, OSError(code, os.strerror(code), absolute))
    if not os.access(destination, os.W_OK):
        raise _open_refusal(
            absolute, mode, PermissionError(errno.EACCES, os.strerror(errno.EACCES), absolute)
        )
    return destination


def _place(commit: _Commit) -> None:
    """Move the partial file onto its destination; `create` never replaces an existing file."""
    if commit.replace:
        os.rename(commit.partial, commit.destination)
        return
    try:
        os.link(commit.partial, commit.destination)  # fails with EEXIST, never replaces
    except OSError as error:
        if error.errno not in _NO_LINKS:
            raise
        if os.path.lexists(commit.destination):
            raise FileExistsError(
                errno.EEXIST, os.strerror(errno.EEXIST), commit.destination
            ) from error
        os.rename(commit.partial, commit.destination)
        return
    os.unlink(commit.partial)


def _sync_directory(directory: str) -> None:
    """fsync a directory so a rename in it survives a crash (where the system supports it)."""
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP}:
            raise
    finally:
        os.close(fd)


class CassetteWriter:
    """A held cassette file: `open` it, `append` interactions, `close` it (idempotent)."""

    def __init__(
        self,
        path: str,
        fd: int,
        lock: WriterLock,
        header: CassetteHeader,
        existing: Sequence[CassetteInteraction],
        *,
        chain: WriterChain,
        commit: _Commit | None = None,
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
        self._chain = chain
        self._queue = asyncio.Lock()
        self._pending: list[tuple[InteractionBody, asyncio.Future[CassetteInteraction]]] = []
        self._drainer: asyncio.Task[None] | None = None
        self._poison: CassetteFormatError | None = None
        self._closed = False
        self._close_task: asyncio.Task[None] | None = None

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
            case Failure(CassetteFormatError() as problem):
                raise problem
        absolute = os.path.abspath(os.fspath(path))
        directory = os.path.dirname(absolute)
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as error:
            raise CassetteFormatError(
                f'cannot create the directory of cassette "{absolute}": {error.strerror}',
                cause=error,
            ) from error
        lock = acquire_writer_lock(absolute)
        try:
            return cls._open_locked(absolute, header, mode, lock)
        except BaseException as error:
            try:
                lock.release()
            except CassetteFormatError as release_error:
                raise CassetteFormatError(
                    f'cannot open cassette "{absolute}" and release its writer lock',
                    cause=BaseExceptionGroup(
                        "cassette open and writer lock release failed", [error, release_error]
                    ),
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
                case Failure(CassetteFormatError() as problem) if not isinstance(
                    problem.__cause__, FileNotFoundError
                ):
                    raise problem
            # A missing append target starts a new cassette in place (WRITE-3): every
            # complete line of an interrupted first run is kept for the next append.
            try:
                fd = os.open(absolute, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
            except OSError as error:
                raise _open_refusal(absolute, mode, error) from error
            return cls._started(absolute, fd, lock, header, None)
        destination = _destination(absolute, mode)
        commit = _Commit(new_partial_path(destination), destination, replace=mode == "truncate")
        try:
            fd = os.open(commit.partial, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o644)
        except OSError as error:
            raise _open_refusal(absolute, mode, error) from error
        with contextlib.suppress(OSError):  # truncate keeps the replaced file's mode bits
            os.fchmod(fd, stat.S_IMODE(os.stat(destination).st_mode))
        return cls._started(absolute, fd, lock, header, commit)

    @classmethod
    def _started(
        cls,
        absolute: str,
        fd: int,
        lock: WriterLock,
        header: CassetteHeader,
        commit: _Commit | None,
    ) -> Self:
        """Write and fsync the header of a new file; on failure close it (WRITE-3)."""
        try:
            match header_line(header):
                case Success(bytes() as line):
                    _write_all(fd, line)
                case Failure(CassetteFormatError() as problem):
                    raise problem
            os.fsync(fd)
            chain = or_raise(WriterChain.resume(fd), identity)
        except (OSError, CassetteFormatError) as error:
            with contextlib.suppress(OSError):
                os.close(fd)
            if commit is not None:
                with contextlib.suppress(OSError):
                    os.unlink(commit.partial)  # nothing was recorded yet
            raise CassetteFormatError(
                f'cannot initialize cassette "{absolute}"', cause=error
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
            fd = os.open(absolute, os.O_RDWR | os.O_APPEND)
        except OSError as error:
            raise CassetteFormatError(
                f'cannot open cassette "{absolute}" in append mode', cause=error
            ) from error
        try:
            size = os.fstat(fd).st_size
            if size > 0 and os.pread(fd, 1, size - 1) != b"\n":
                _write_all(fd, b"\n")  # WRITE-5: repair a missing trailing newline
            chain = or_raise(WriterChain.resume(fd), identity)
        except (OSError, CassetteFormatError) as error:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise CassetteFormatError(
                f'cannot prepare cassette "{absolute}" for append', cause=error
            ) from error
        return cls(absolute, fd, lock, existing.header, existing.interactions, chain=chain)

    async def append(self, body: InteractionBody) -> CassetteInteraction:
        """Chain, validate and write one interaction, in call order (WRITE-7, WRITE-8)."""
        if self._closed:
            raise CassetteFormatError("cassette writer is closed")
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[CassetteInteraction] = loop.create_future()
        self._pending.append((body, waiter))
        if self._drainer is None:
            self._drainer = loop.create_task(self._drain())
        return await waiter

    async def _drain(self) -> None:
        """Write queued appends batch by batch until none is left; settle every waiter."""
        live: list[tuple[InteractionBody, asyncio.Future[CassetteInteraction]]] = []
        try:
            async with self._queue:
                while self._pending:
                    batch, self._pending = self._pending, []
                    live = [(body, waiter) for body, waiter in batch if not waiter.cancelled()]
                    if not live:
                        continue
                    bodies = [body for body, _ in live]
                    try:
                        outcomes = await asyncio.to_thread(self._append_batch_blocking, bodies)
                    except Exception as error:  # the worker thread itself failed: stop writing
                        self._poison = CassetteFormatError(
                            f'cannot write cassette "{self.path}"', cause=error
                        )
                        outcomes = [self._poison] * len(live)
                    for (_, waiter), outcome in zip(live, outcomes, strict=True):
                        if waiter.done():
                            continue
                        if isinstance(outcome, BaseException):
                            waiter.set_exception(outcome)
                        else:
                            waiter.set_result(outcome)
                    live = []
        finally:
            self._drainer = None
            for _, waiter in [*live, *self._pending]:  # only if the drain itself was stopped
                waiter.cancel()
            self._pending = []

    def _append_batch_blocking(
        self, bodies: list[InteractionBody]
    ) -> list[CassetteInteraction | Exception]:
        """Seal and check each body in order, then write the good ones in one call.

        A format error stops the writer (later appends get the same error); any other
        exception fails only its own append, as `_seal_next` changes nothing.
        """
        outcomes: list[CassetteInteraction | Exception] = []
        lines: list[bytes] = []
        offset = self._size
        if self._poison is None:
            self._poison = self._file_changed()
        for body in bodies:
            if self._poison is not None:
                outcomes.append(self._poison)
                continue
            try:
                sealed = self._chain.seal(body)
            except Exception as error:  # an odd body: its own caller sees why
                outcomes.append(error)
                continue
            match sealed:
                case Success(Sealed() as next_record):
                    self._chain.accept(next_record, offset)
                    offset += len(next_record.line)
                    outcomes.append(next_record.interaction)
                    lines.append(next_record.line)
                case Failure(CassetteFormatError() as problem):
                    self._poison = problem
                    outcomes.append(problem)
        if lines:
            data = b"".join(lines)
            try:
                _write_all(self._fd, data)
            except OSError as error:
                failure = self._rolled_back(error)
                self._poison = failure
                outcomes = [failure if isinstance(o, CassetteInteraction) else o for o in outcomes]
            else:
                self._size += len(data)
                self._chain.written()
        return outcomes

    def _rolled_back(self, error: OSError) -> CassetteFormatError:
        """Cut the file back to its last complete record after a failed write; the error."""
        try:
            os.ftruncate(self._fd, self._size)
        except OSError as truncate_error:
            return CassetteFormatError(
                f"cannot write {self._subject} nor cut it back to its last complete record "
                f"at byte {self._size}",
                cause=BaseExceptionGroup(
                    "cassette write and roll-back failed", [error, truncate_error]
                ),
            )
        return CassetteFormatError(
            f"cannot write {self._subject}: {error.strerror or error}; "
            f"it was cut back to its last complete record at byte {self._size}",
            cause=error,
        )

    def _file_changed(self) -> CassetteFormatError | None:
        """Why the path no longer names this writer's file at the size it wrote, if it does not.

        Compares the path's device and inode with the open descriptor's, and the file's size
        with the end of the last record written, so a replaced, removed or truncated file
        (or one another process wrote to) stops the recording loudly instead of silently.
        """
        named = self.path if self._commit is None else self._commit.partial
        try:
            found = os.stat(named)
            held = os.fstat(self._fd)
        except FileNotFoundError:
            return CassetteFormatError(
                f"{self._subject} was removed while being written; the recording stopped"
            )
        except OSError as error:
            return CassetteFormatError(f"cannot check {self._subject}", cause=error)
        if (found.st_dev, found.st_ino) != self._identity:
            return CassetteFormatError(
                f"{self._subject} no longer names the file this writer opened "
                "(it was replaced or moved while being written); the recording stopped"
            )
        if held.st_size != self._size:
            return CassetteFormatError(
                f"{self._subject} changed size under its writer (expected {self._size} bytes, "
                f"found {held.st_size}): another process truncated or wrote it; "
                "the recording stopped"
            )
        return None

    def mark_interrupted(self) -> None:
        """Make the coming close keep the partial file and leave the target as it was."""
        self._interrupted = True

    async def abandon(self) -> None:
        """Close as an interrupted recording: queued appends land in the partial file only."""
        self.mark_interrupted()
        await self.close()

    async def close(self) -> None:
        """Wait for queued appends, fsync, commit, close, release the lock (WRITE-9); idempotent.

        In `create`/`truncate` mode a clean close renames the partial file over the target;
        after a failed append or `mark_interrupted` the partial file stays and the target
        is untouched.
        """
        self._closed = True
        if self._close_task is None:
            self._close_task = asyncio.ensure_future(self._close_once())
        await asyncio.shield(self._close_task)

    async def _close_once(self) -> None:
        errors: list[BaseException] = []
        while self._drainer is not None:  # appends made before close still land
            with contextlib.suppress(Exception):
                await asyncio.shield(self._drainer)
        async with self._queue:
            if self._poison is not None:
                errors.append(self._poison)
            errors.extend(await asyncio.to_thread(self._close_blocking))
        if len(errors) == 1:
            raise errors[0]
        if errors:
            raise CassetteFormatError(
                f'cannot close cassette writer "{self.path}"',
                cause=BaseExceptionGroup("cassette writer close failed", errors),
            )

    def _close_blocking(self) -> list[BaseException]:
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
                    CassetteFormatError(f'cannot close cassette "{self.path}"', cause=error)
                )
        clean = not errors and self._poison is None and not self._interrupted
        if self._commit is not None and clean:
            errors.extend(self._commit_blocking(self._commit))
        try:
            self._lock.release()
        except CassetteFormatError as error:
            errors.append(error)
        return errors

    def _commit_blocking(self, commit: _Commit) -> list[BaseException]:
        """Rename the complete partial file over the target, then fsync the directory."""
        try:
            _place(commit)
        except FileExistsError as error:
            return [
                CassetteFormatError(
                    f'cannot commit cassette "{self.path}": it was created by someone else '
                    f'while recording; the recording stays in "{commit.partial}"',
                    cause=error,
                )
            ]
        except OSError as error:
            return [
                CassetteFormatError(
                    f'cannot commit cassette "{self.path}"; '
                    f'the recording stays in "{commit.partial}"',
                    cause=error,
                )
            ]
        self.partial_path = None
        try:
            _sync_directory(os.path.dirname(commit.destination))
        except OSError as error:
            return [
                CassetteFormatError(
                    f'cannot sync the directory of cassette "{self.path}" after commit',
                    cause=error,
                )
            ]
        return []

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
