"""Per-call overhead of recording and of replay vs calling the upstream directly (ratios).

Usage: uv run --no-sync python scripts/bench_provider.py [N ...]   (default: 1000 10000)
Each size starts N concurrent calls; the floor is the same N calls straight to the upstream.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)


async def _answer(request: StartRequest, _child: SimpleAgent) -> object:
    return {"output": [{"type": "text", "text": str(request.label)}], "stopReason": "completed"}


async def _calls(registry: ProviderRegistry, name: str, count: int) -> float:
    root = SimpleAgent(session_id="bench-root")

    async def one(index: int) -> None:
        run = await registry.start(
            name,
            StartRequest(
                prompt=[{"type": "text", "text": f"task {index}"}], parent=root, label=f"c{index}"
            ),
        )
        await run.result
        await run.dispose()

    began = time.perf_counter()
    await asyncio.gather(*(one(index) for index in range(count)))
    return time.perf_counter() - began


async def _measure(count: int, folder: Path) -> tuple[float, float, float]:
    direct = ProviderRegistry()
    direct.register(FunctionProvider("spawn", _answer))
    floor = await _calls(direct, "spawn", count)

    path = folder / f"bench-{count}.cassette.jsonl"
    recording = ProviderRegistry()
    recording.register(FunctionProvider("spawn", _answer))
    began = time.perf_counter()
    async with install_cassette(recording, RecordConfig(file=str(path))):
        await _calls(recording, "cassette", count)
    record = time.perf_counter() - began

    replaying = ProviderRegistry()
    began = time.perf_counter()
    async with install_cassette(replaying, ReplayConfig(file=str(path))):
        await _calls(replaying, "cassette", count)
    replay = time.perf_counter() - began
    return floor, record, replay


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("sizes", nargs="*", type=int, help="calls per run (default: 1000 10000)")
    sizes = parser.parse_args(argv).sizes or [1000, 10000]
    with tempfile.TemporaryDirectory() as folder:
        for count in sizes:
            floor, record, replay = asyncio.run(_measure(count, Path(folder)))
            print(
                f"{count} concurrent calls: direct {floor / count * 1e6:.1f} us/call; "
                f"record {record / floor:.1f}x direct "
                f"({(record - floor) / count * 1e6:.1f} us/call overhead); "
                f"replay {replay / floor:.1f}x direct "
                f"({(replay - floor) / count * 1e6:.1f} us/call overhead, includes load)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
