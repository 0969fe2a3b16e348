"""Benchmark the writer's per-append cost against floors measured in the same run (issue 27).

Floors: `os.write` of the same pre-rendered lines (the I/O alone) and `seal_body` of the same
bodies (the sealer alone). Workloads: `append_blocking` from one thread, `await append` on
one event loop, and `append_blocking` from 8 threads at once. Prints microseconds per append
and ratios against the floors; the issue-24 budget is <= 100 us of recording overhead per
call, of which the writer's part is what this prints minus the sealer floor.

  uv run --no-sync python scripts/bench_writer_append.py [--calls 5000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from cassette_format import (
    Capabilities,
    CassetteWriter,
    InteractionBody,
    MetadataRequestView,
    RequestMetadata,
    ResultOutcome,
    Timing,
    create_header,
)
from cassette_format.records.frozen_json import freeze_object
from cassette_format.write.seal import seal_body
from returns.result import Success


def _digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _header() -> object:
    return create_header(
        cassette="bench",
        upstream="spawn",
        capabilities=Capabilities(
            output_schema=False, depth_limit=True, tool_filter=False, persona=False
        ),
        inherits_parent_context=False,
        request_storage="metadata",
        redact_secrets=True,
        redaction_patterns=(),
        cassette_id="00000000-0000-4000-8000-000000000001",
        created_at=datetime(2026, 1, 1, tzinfo=UTC),
    ).unwrap()


def _body(sequence: int) -> InteractionBody:
    """A realistic call: a few hundred bytes of metadata and a ~2 KB result."""
    tag = f"request-{sequence}"
    return InteractionBody(
        sequence=sequence,
        call_key=f"root/audit-{_digest(tag)[7:19]}~1",
        parent_key="root",
        parent_context_fingerprint=_digest("parent"),
        occurrence=1,
        request_fingerprint=_digest(tag),
        request=MetadataRequestView(
            RequestMetadata(
                prompt_blocks=1,
                prompt_bytes=400,
                has_output_schema=False,
                has_persona=False,
                label="audit",
                max_depth=2,
                child_provider="deepseek",
            )
        ),
        timing=Timing(
            started_at="2026-01-01T00:00:00.000Z", start_latency_ms=1.0, duration_ms=10.0
        ),
        published=True,
        local=False,
        outcome=ResultOutcome(
            result=freeze_object(
                {
                    "output": [{"type": "text", "text": f"answer {sequence} " + "x" * 2000}],
                    "stopReason": "completed",
                }
            ),
            redactions=0,
        ),
    )


def _floor_write(directory: Path, lines: list[bytes]) -> float:
    fd = os.open(directory / "floor.jsonl", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    start = time.perf_counter()
    for line in lines:
        os.write(fd, line)
    elapsed = time.perf_counter() - start
    os.close(fd)
    return elapsed


def _floor_seal(bodies: list[InteractionBody]) -> tuple[float, list[bytes]]:
    lines: list[bytes] = []
    previous = "sha256:" + "0" * 64
    start = time.perf_counter()
    for body in bodies:
        match seal_body(body, previous):
            case Success(sealed):
                lines.append(sealed.line)
                previous = sealed.interaction.hash
    return time.perf_counter() - start, lines


def _sync(directory: Path, bodies: list[InteractionBody]) -> float:
    writer = CassetteWriter.open_blocking(directory / "sync.jsonl", _header(), "create")  # type: ignore[arg-type]
    start = time.perf_counter()
    for body in bodies:
        writer.append_blocking(body)
    elapsed = time.perf_counter() - start
    writer.close_blocking()
    return elapsed


def _async(directory: Path, bodies: list[InteractionBody]) -> float:
    async def run() -> float:
        writer = await CassetteWriter.open(directory / "async.jsonl", _header(), "create")  # type: ignore[arg-type]
        start = time.perf_counter()
        for body in bodies:
            await writer.append(body)
        elapsed = time.perf_counter() - start
        await writer.close()
        return elapsed

    return asyncio.run(run())


def _threads(directory: Path, bodies: list[InteractionBody], count: int = 8) -> float:
    writer = CassetteWriter.open_blocking(directory / "threads.jsonl", _header(), "create")  # type: ignore[arg-type]
    barrier = threading.Barrier(count + 1)

    def run(share: list[InteractionBody]) -> None:
        barrier.wait()
        for body in share:
            writer.append_blocking(body)

    threads = [threading.Thread(target=run, args=(bodies[i::count],)) for i in range(count)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    writer.close_blocking()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args()
    bodies = [_body(s) for s in range(1, options.calls + 1)]
    best: dict[str, float] = {}
    for _ in range(options.repeats):
        with tempfile.TemporaryDirectory() as folder:
            directory = Path(folder)
            sealing, lines = _floor_seal(bodies)
            runs = {
                "floor: os.write": _floor_write(directory, lines),
                "floor: seal_body": sealing,
                "append_blocking (1 thread)": _sync(directory, bodies),
                "await append (1 loop)": _async(directory, bodies),
                "append_blocking (8 threads)": _threads(directory, bodies),
            }
        for name, elapsed in runs.items():
            best[name] = min(best.get(name, elapsed), elapsed)
    floor = best["floor: os.write"] + best["floor: seal_body"]
    per = 1e6 / options.calls
    print(f"{options.calls} appends of ~{len(lines[0])} B lines, best of {options.repeats}")
    for name, elapsed in best.items():
        print(f"  {name:30s} {elapsed * per:8.1f} us/append   {elapsed / floor:5.2f}x floor")
    writer_part = best["append_blocking (1 thread)"] - best["floor: seal_body"]
    print(f"  writer edge beyond the sealer: {writer_part * per:.1f} us/append (budget 100)")


if __name__ == "__main__":
    main()
