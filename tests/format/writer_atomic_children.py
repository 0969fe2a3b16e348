"""Child-process bodies for the atomic-writer tests (importable by spawned interpreters)."""

from __future__ import annotations

import asyncio
import resource
import signal
from multiprocessing.queues import Queue

from cassette_format import CassetteFormatError, CassetteWriter, WriteMode

from format.builders import make_body, make_header


def record_until_killed(path: str, mode: WriteMode, progress: Queue[int]) -> None:
    """Append interactions forever in `mode`, reporting each completed append."""

    async def run() -> None:
        writer = await CassetteWriter.open(path, make_header(), mode)
        sequence = writer.next_sequence - 1
        while True:
            sequence += 1
            await writer.append(make_body(sequence, request_tag=f"killed-{sequence}"))
            progress.put(sequence)

    asyncio.run(run())


def append_past_file_size_limit(
    path: str, mode: WriteMode, limit: int, results: Queue[tuple[int, str, str]]
) -> None:
    """Append under RLIMIT_FSIZE (SIGXFSZ ignored, so writes fail with EFBIG) until refused.

    Reports how many appends succeeded, the append error and the close error.
    """
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))

    async def run() -> tuple[int, str, str]:
        writer = await CassetteWriter.open(path, make_header(), mode)
        written = 0
        sequence = writer.next_sequence
        try:
            while True:
                await writer.append(make_body(sequence, request_tag=f"limit-{sequence}"))
                written += 1
                sequence += 1
        except CassetteFormatError as error:
            failure = error.message
        try:
            await writer.close()
        except CassetteFormatError as error:
            return written, failure, error.message
        return written, failure, ""

    results.put(asyncio.run(run()))
