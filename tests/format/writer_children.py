"""Child-process bodies for the writer tests (importable by spawned interpreters)."""

from __future__ import annotations

import asyncio
import os
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier, Event

from cassette_format import CassetteFormatError, CassetteWriter

from format.builders import make_body, make_header


def race_to_open(path: str, barrier: Barrier, release: Event, results: Queue[str]) -> None:
    """Open after the barrier; the winner holds the lock until `release` is set."""
    barrier.wait()
    try:
        writer = CassetteWriter.open_blocking(path, make_header(), "create")
    except CassetteFormatError as error:
        results.put(f"lost:{error.message}")
        return
    results.put("won")
    release.wait()

    async def finish() -> None:
        await writer.append(make_body(1))
        await writer.close()

    asyncio.run(finish())


def append_until_killed(path: str, progress: Queue[int]) -> None:
    """Append interactions forever, reporting each completed append."""

    async def run() -> None:
        writer = await CassetteWriter.open(path, make_header(), "create")
        sequence = 0
        while True:
            sequence += 1
            await writer.append(make_body(sequence))
            progress.put(sequence)

    asyncio.run(run())


def pid() -> int:
    return os.getpid()
