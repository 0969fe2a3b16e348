"""Child-process bodies for the provider's atomic-recording tests (spawned interpreters)."""

from __future__ import annotations

import asyncio
import contextlib
import resource
import signal
from multiprocessing.queues import Queue

from cassette_provider import (
    CassetteError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from provider.support_provider import answer, prompt


async def record_until_refused(path: str) -> tuple[list[str], str, str]:
    """Record `call-<n>` calls one by one in append mode until one fails; then dispose.

    Returns the labels whose results were persisted, the failing call's error and the
    dispose error (empty when dispose succeeded).
    """
    registry = ProviderRegistry()

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return answer(request.label or "")

    registry.register(FunctionProvider("spawn", run))
    handle = install_cassette(registry, RecordConfig(file=path, write_mode="append"))
    root = SimpleAgent(session_id="root")
    persisted: list[str] = []
    failure = ""
    for index in range(100_000):
        label = f"call-{index}"
        child = await registry.start(
            "cassette", StartRequest(prompt=prompt(label * 20), parent=root, label=label)
        )
        try:
            assert await child.result == answer(label)
        except CassetteError as error:
            failure = error.message
            with contextlib.suppress(CassetteError):  # it raises the same write error
                await child.dispose()
            break
        await child.dispose()
        persisted.append(label)
    try:
        await handle.dispose()
    except CassetteError as error:
        return persisted, failure, error.message
    return persisted, failure, ""


def record_past_file_size_limit(
    path: str, limit: int, results: Queue[tuple[list[str], str, str]]
) -> None:
    """`record_until_refused` under RLIMIT_FSIZE, SIGXFSZ ignored (writes fail with EFBIG)."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    results.put(asyncio.run(record_until_refused(path)))
