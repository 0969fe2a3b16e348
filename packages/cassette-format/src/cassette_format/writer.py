"""The append-only cassette writer (WRITE-1..10): locked, chained, serialized, asyncio-safe.

Appends join a FIFO queue. One drain task takes everything queued so far as a batch and
seals, validates and writes it in a worker thread (`asyncio.to_thread`, one write call
per batch), so the event loop never blocks on I/O and concurrent appends share one
thread hop instead of paying one each. Each append still gets its own sealed record or
its own error, in call order. Beyond the reference, a sequence, call key or group
occurrence written twice is refused before it reaches the file, so this writer never
produces a cassette its loader rejects.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Literal, Self

from cassette_canonical import canonical_json
from returns.result import Failure, Success

from cassette_format.chain import header_line, interaction_line, seal_interaction
from cassette_format.errors import CassetteFormatError
from cassette_format.header import validate_header
from cassette_format.lock import WriterLock, acquire_writer_lock
from cassette_format.parse import read_cassette
from cassette_format.records import CassetteHeader, CassetteInteraction, InteractionBody

__all__ = ["CassetteWriter", "WriteMode"]

WriteMode = Literal["create", "truncate", "append"]

_COMPARED = (
    "provider.cassette",
    "provider.upstream",
    "provider.capabilities",
    "provider.inheritsParentContext",
    "requestStorage",
    "redactSecrets",
    "redactionPatterns",
)


def _policy_value(header: CassetteHeader, field: str) -> object:
    document = header.to_json()
    provider = document["provider"]
    if field.startswith("provider.") and isinstance(provider, dict):
        return provider[field.removeprefix("provider.")]
    return document[field]


def _check_append_compatible(existing: CassetteHeader, requested: CassetteHeader) -> None:
    """WRITE-4: the first differing policy field, compared as canonical text."""
    for field in _COMPARED:
        ours = canonical_json(_policy_value(existing, field))
        theirs = canonical_json(_policy_value(requested, field))
        if ours != theirs:
            raise CassetteFormatError(
                f"cannot append: existing header {field} differs from configured value"
            )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


class CassetteWriter:
    """A held cassette file: `open` it, `append` interactions, `close` it (idempotent)."""

    def __init__(
        self,
        path: str,
        fd: int,
        lock: WriterLock,
        header: CassetteHeader,
        existing: Sequence[CassetteInteraction],
    ) -> None:
        self.path = path
        self.header = header
        self.existing_interactions: tuple[CassetteInteraction, ...] = tuple(existing)
        self.next_sequence = max((i.sequence for i in existing), default=0) + 1
        self._fd = fd
        self._lock = lock
        self._previous_hash = existing[-1].hash if existing else header.hash
        self._sequences = {i.sequence for i in existing}
        self._call_keys = {i.call_key for i in existing}
        self._occurrences = {(i.group_key, i.occurrence) for i in existing}
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
        checked = validate_header(header)
        if isinstance(checked, Failure):
            raise checked.failure()
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
            existing = read_cassette(absolute)
            if isinstance(existing, Success):
                return cls._open_append(
                    absolute, header, lock, existing.unwrap().header, existing.unwrap().interactions
                )
            problem = existing.failure()
            if not isinstance(problem.__cause__, FileNotFoundError):
                raise problem
            # A missing append target starts a new cassette (WRITE-3).
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if mode == "truncate" else os.O_EXCL)
        try:
            fd = os.open(absolute, flags, 0o644)
        except OSError as error:
            raise CassetteFormatError(
                f'cannot open cassette "{absolute}" in {mode} mode', cause=error
            ) from error
        try:
            line = header_line(header)
            if isinstance(line, Failure):
                raise line.failure()
            _write_all(fd, line.unwrap())
            os.fsync(fd)
        except (OSError, CassetteFormatError) as error:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise CassetteFormatError(
                f'cannot initialize cassette "{absolute}"', cause=error
            ) from error
        return cls(absolute, fd, lock, header, ())

    @classmethod
    def _open_append(
        cls,
        absolute: str,
        requested: CassetteHeader,
        lock: WriterLock,
        existing_header: CassetteHeader,
        interactions: Sequence[CassetteInteraction],
    ) -> Self:
        _check_append_compatible(existing_header, requested)
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
        except OSError as error:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise CassetteFormatError(
                f'cannot prepare cassette "{absolute}" for append', cause=error
            ) from error
        return cls(absolute, fd, lock, existing_header, interactions)

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
        exception fails only its own append, as `_seal_next` changes nothing until the end.
        """
        outcomes: list[CassetteInteraction | Exception] = []
        lines: list[bytes] = []
        for body in bodies:
            if self._poison is not None:
                outcomes.append(self._poison)
                continue
            try:
                interaction, line = self._seal_next(body)
            except CassetteFormatError as error:
                self._poison = error
                outcomes.append(error)
                continue
            except Exception as error:  # an odd body: its own caller sees why
                outcomes.append(error)
                continue
            outcomes.append(interaction)
            lines.append(line)
        if lines:
            try:
                _write_all(self._fd, b"".join(lines))
            except OSError as error:
                failure = CassetteFormatError(f'cannot write cassette "{self.path}"', cause=error)
                self._poison = failure
                outcomes = [failure if isinstance(o, CassetteInteraction) else o for o in outcomes]
        return outcomes

    def _seal_next(self, body: InteractionBody) -> tuple[CassetteInteraction, bytes]:
        """Chain `body` after the last sealed record and refuse repeats; its record and line."""
        sealed = seal_interaction(body, self._previous_hash)
        if isinstance(sealed, Failure):
            raise sealed.failure()
        interaction = sealed.unwrap()
        storage = self.header.request_storage
        if interaction.request.storage != storage:
            raise CassetteFormatError(
                f'interaction request.storage must match header.requestStorage "{storage}"'
            )
        if interaction.sequence in self._sequences:
            raise CassetteFormatError(
                f"interaction sequence {interaction.sequence} was already written"
            )
        if interaction.call_key in self._call_keys:
            raise CassetteFormatError(
                f'interaction call key "{interaction.call_key}" was already written'
            )
        occurrence = (interaction.group_key, interaction.occurrence)
        if occurrence in self._occurrences:
            raise CassetteFormatError(
                f"interaction occurrence {interaction.occurrence} was already written "
                "for one parent-context/request group"
            )
        line = interaction_line(interaction)
        if isinstance(line, Failure):
            raise line.failure()
        self._sequences.add(interaction.sequence)
        self._call_keys.add(interaction.call_key)
        self._occurrences.add(occurrence)
        self._previous_hash = interaction.hash
        return interaction, line.unwrap()

    async def close(self) -> None:
        """Wait for queued appends, fsync, close, release the lock (WRITE-9); idempotent."""
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
        steps: tuple[Callable[[int], None], ...] = (os.fsync, os.close)
        for step in steps:
            try:
                step(self._fd)
            except OSError as error:
                errors.append(
                    CassetteFormatError(f'cannot close cassette "{self.path}"', cause=error)
                )
        try:
            self._lock.release()
        except CassetteFormatError as error:
            errors.append(error)
        return errors

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()
