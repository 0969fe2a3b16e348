"""Peak memory of recording many tiny calls: what a recording keeps per call (issue 26).

Records `--calls` tiny calls (a one-block prompt, a one-block result) through the real
provider, the topology tracker and the cassette writer, in a fresh subprocess, and prints that
process's peak RSS (VmHWM from /proc/self/status, as scripts/bench_format.py reads it) beside
a floor measured in the same run: the same process recording no call. Target at 1,000,000
calls: peak RSS <= 256 MB. `--trace N` prints the top allocation sites (tracemalloc) still
held after N calls, to find what is kept per call.

  uv run --no-sync python scripts/bench_record_memory.py [--calls 1000000] [--batch 1000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

TARGET_MB = 256

WORKLOAD = """
import asyncio, sys, tracemalloc

calls, batch, trace, path = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]

from cassette_provider import (
    FunctionProvider, ProviderRegistry, RecordConfig, SimpleAgent, StartRequest, install_cassette,
)

def peak_kb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0

ANSWER = {"output": [{"type": "text", "text": "ok"}], "stopReason": "completed"}

async def run_child(request, child):
    return ANSWER

async def one(registry, parent, index):
    request = StartRequest(prompt=[{"type": "text", "text": f"t{index}"}], parent=parent)
    run = await registry.start("cassette", request)
    try:
        await run.result
    finally:
        await run.dispose()

async def main():
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run_child))
    handle = install_cassette(registry, RecordConfig(file=path))
    parent = SimpleAgent(session_id="root")
    if trace:
        tracemalloc.start(8)
    done = 0
    while done < calls:
        size = min(batch, calls - done)
        await asyncio.gather(*(one(registry, parent, done + i) for i in range(size)))
        done += size
    if trace:
        snapshot = tracemalloc.take_snapshot()
        for stat in snapshot.statistics("traceback")[:12]:
            print(f"TRACE {stat.size / calls:8.1f} B/call {stat.count:>9} blocks")
            for line in stat.traceback.format()[-6:]:
                print("TRACE    ", line)
    await handle.dispose()
    print("PEAK_KB", peak_kb())

asyncio.run(main())
"""


def _peak_kb(calls: int, batch: int, trace: int, directory: Path) -> int:
    """Run the workload in a fresh interpreter; its VmHWM in KiB."""
    path = directory / f"record-{calls}.cassette.jsonl"
    out = subprocess.run(
        [sys.executable, "-c", WORKLOAD, str(calls), str(batch), str(trace), str(path)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for line in out.splitlines():
        if line.startswith("TRACE"):
            print(line.removeprefix("TRACE "))
    peaks = [int(line.split()[1]) for line in out.splitlines() if line.startswith("PEAK_KB")]
    return peaks[0]


def main() -> None:
    """Print the floor, the peak at --calls, the bytes kept per call and the target ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=1000, help="calls in flight at once")
    parser.add_argument("--trace", action="store_true", help="print the top allocation sites")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        floor = _peak_kb(0, args.batch, 0, Path(directory))
        peak = _peak_kb(args.calls, args.batch, 1 if args.trace else 0, Path(directory))
    per_call = (peak - floor) * 1024 / max(args.calls, 1)
    print(f"floor (no call recorded):   {floor / 1024:8.1f} MB peak RSS")
    print(f"{args.calls:>9,} tiny calls:      {peak / 1024:8.1f} MB peak RSS")
    print(f"kept per call:              {per_call:8.1f} B over the floor")
    print(f"peak / {TARGET_MB} MB target:      {peak / 1024 / TARGET_MB:8.2f}")


if __name__ == "__main__":
    main()
