"""Record and replay overhead per call against the direct-call floor, in one run (issue 24).

The default RecordConfig (metadata storage, secrets redacted) records payloads drawn as
../shared/bench/gen_cassette.py draws them (its `Gen`, TEXT_BYTES 1000): 1-2 prompt blocks of
0.2-2.4 KB, optional agent options, schema, depth, tool filter and persona; ~2 KB results with
reasoning, tool calls, nested tool results and usage; 1% start errors, 2% result errors. The
upstream answers from the prepared payloads, so the floor (the same calls straight to the
upstream, in the same run) is the harness's own cost.

Printed, one line each:
  record, N concurrent   overhead per call = (recorded - direct) / N, targets <= 100 us
  record, sequential     the same, one call after another, target <= 120 us
  record, 10,000 calls   wall time of 10,000 concurrent recorded calls with install and
                         close, target <= 3 s
  replay, N concurrent   overhead per call on the cassette just recorded (install apart),
                         target <= 100 us
  matcher build          100k / 10k build time of the topology matcher (bench_topology's
                         synthetic cassette), target <= 12

  uv run --no-sync python scripts/bench_record.py [--calls 1000] [--sequential 1000]
      [--total 10000] [--matcher-sizes 10000,100000] [--rounds 3] [--generator PATH]
      [--storage metadata|full] [--redact-secrets on|off]
The targets are for the defaults (metadata storage, secrets redacted); the two options show
what the other settings cost.
Each figure is the median of --rounds rounds; the lead runs the full sizes on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import importlib.util
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_topology import InteractionMatcher

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_cassette.py"
TEXT_BYTES = 1000
SEED = 1


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True, slots=True)
class Call:
    """One drawn call: its start request fields and what the upstream answers."""

    request: dict[str, Any]
    kind: str
    answer: Any


class UpstreamError(Exception):
    """What the drawn start-error and result-error calls raise."""


def draw(count: int, source: Path = GENERATOR) -> list[Call]:
    """`count` calls drawn by gen_cassette's generator (requests and outcomes)."""
    generator = _load(source, "gen_cassette").Gen(count, "full", TEXT_BYTES, SEED)
    calls = []
    for index in range(1, count + 1):
        outcome = generator.make_outcome(index)["outcome"]
        kind = outcome["kind"]
        answer = outcome["result"] if kind == "result" else outcome["error"]["message"]
        request = generator.make_request(index)
        request["label"] = f"{request['label']}-{index}"  # one group per call
        calls.append(Call(request, kind, answer))
    return calls


def _start_request(call: Call, parent: SimpleAgent) -> StartRequest:
    fields = call.request
    return StartRequest(
        prompt=fields["prompt"],
        parent=parent,
        label=fields.get("label"),
        agent_options=fields.get("agentOptions"),
        output_schema=fields.get("outputSchema"),
        max_depth=fields.get("maxDepth"),
        tool_filter=fields.get("toolFilter"),
        persona=fields.get("persona"),
    )


def _registry(calls: list[Call]) -> ProviderRegistry:
    """A registry holding the upstream: drawn start errors fail the start, the rest answer."""
    by_label = {call.request["label"]: call for call in calls}

    def start(request: StartRequest) -> None:
        if by_label[request.label].kind == "start-error":
            raise UpstreamError("provider offline")

    async def answer(request: StartRequest, _child: SimpleAgent) -> object:
        call = by_label[request.label]
        if call.kind == "result-error":
            raise UpstreamError(call.answer)
        return call.answer

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", answer, start=start))
    return registry


async def _one(registry: ProviderRegistry, name: str, request: StartRequest) -> None:
    try:
        run = await registry.start(name, request)
    except Exception:
        return
    with contextlib.suppress(Exception):
        await run.result
    await run.dispose()


async def _concurrent(registry: ProviderRegistry, name: str, requests: list[StartRequest]) -> None:
    await asyncio.gather(*(_one(registry, name, request) for request in requests))


async def _sequential(registry: ProviderRegistry, name: str, requests: list[StartRequest]) -> None:
    for request in requests:
        await _one(registry, name, request)


Runner = Callable[[ProviderRegistry, str, list[StartRequest]], Awaitable[None]]


async def _timed(run: Awaitable[None]) -> float:
    gc.collect()
    began = time.perf_counter()
    await run
    return time.perf_counter() - began


async def _record_round(
    calls: list[Call], runner: Runner, path: Path, options: dict[str, Any]
) -> tuple[float, float, float]:
    """(direct s, recorded calls s, install + close s) for one round; `options` for RecordConfig."""
    requests = [_start_request(call, SimpleAgent(session_id="bench")) for call in calls]
    direct = await _timed(runner(_registry(calls), "spawn", requests))
    registry = _registry(calls)
    began = time.perf_counter()
    handle = install_cassette(registry, RecordConfig(file=str(path), **options))
    installed = time.perf_counter() - began
    recorded = await _timed(runner(registry, "cassette", requests))
    closed = await _timed(handle.dispose())
    return direct, recorded, installed + closed


async def _replay_round(calls: list[Call], path: Path) -> tuple[float, float]:
    """(direct s, replayed calls s) over the cassette at `path` (its install apart)."""
    requests = [_start_request(call, SimpleAgent(session_id="bench")) for call in calls]
    direct = await _timed(_concurrent(_registry(calls), "spawn", requests))
    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(path)))
    replayed = await _timed(_concurrent(registry, "cassette", requests))
    await handle.dispose()
    return direct, replayed


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def _us(seconds: float, count: int) -> float:
    return seconds / count * 1e6


def _report_record(
    label: str, rounds: list[tuple[float, float, float]], count: int, target: int
) -> None:
    direct = _median([r[0] for r in rounds])
    recorded = _median([r[1] for r in rounds])
    overhead = _median([_us(r[1] - r[0], count) for r in rounds])
    print(
        f"record, {label:<16} direct {_us(direct, count):7.1f} us/call  recorded "
        f"{_us(recorded, count):7.1f} us/call  overhead {overhead:7.1f} us/call "
        f"(target <= {target})  install+close {_median([r[2] for r in rounds]) * 1e3:.1f} ms"
    )


def _matcher_ratio(sizes: list[int]) -> None:
    topology = _load(ROOT / "scripts" / "bench_topology.py", "bench_topology")
    builds: dict[int, float] = {}
    pcf = topology.context_fingerprint()
    for size in sizes:
        cassette, _ = topology.synthesize(size, pcf)
        gc.collect()
        began = time.perf_counter()
        InteractionMatcher.build(cassette).unwrap()
        builds[size] = time.perf_counter() - began
        del cassette
    small, large = min(sizes), max(sizes)
    figures = ", ".join(f"{size}: {seconds * 1e3:.1f} ms" for size, seconds in builds.items())
    print(
        f"matcher build  {figures}; {large}/{small} = {builds[large] / builds[small]:.2f} "
        "(target <= 12 for 10x the interactions)"
    )


async def _main(options: argparse.Namespace) -> None:
    rounds = options.rounds
    record = {
        "request_storage": options.storage,
        "redact_secrets": options.redact_secrets == "on",
    }
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        calls = draw(max(options.calls, options.sequential, options.total), options.generator)
        concurrent = calls[: options.calls]
        results = [
            await _record_round(concurrent, _concurrent, base / f"c{index}.cassette.jsonl", record)
            for index in range(rounds)
        ]
        _report_record(f"{options.calls} concurrent", results, options.calls, 100)
        sequential = calls[: options.sequential]
        results = [
            await _record_round(sequential, _sequential, base / f"s{index}.cassette.jsonl", record)
            for index in range(rounds)
        ]
        _report_record(f"{options.sequential} sequential", results, options.sequential, 120)
        total = calls[: options.total]
        walls = []
        for index in range(rounds):
            _, recorded, around = await _record_round(
                total, _concurrent, base / f"t{index}.cassette.jsonl", record
            )
            walls.append(recorded + around)
        print(
            f"record, {options.total} concurrent calls with install and close: "
            f"{_median(walls):.2f} s (target <= 3 s)"
        )
        replays = [
            await _replay_round(concurrent, base / "c0.cassette.jsonl") for _ in range(rounds)
        ]
        direct = _median([r[0] for r in replays])
        print(
            f"replay, {options.calls} concurrent direct {_us(direct, options.calls):7.1f} us/call  "
            f"replayed {_us(_median([r[1] for r in replays]), options.calls):7.1f} us/call  "
            f"overhead {_median([_us(r[1] - r[0], options.calls) for r in replays]):7.1f} us/call "
            "(target <= 100)"
        )
    _matcher_ratio([int(size) for size in options.matcher_sizes.split(",")])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--sequential", type=int, default=1000)
    parser.add_argument("--total", type=int, default=10000)
    parser.add_argument("--matcher-sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--generator", type=Path, default=GENERATOR)
    parser.add_argument("--storage", choices=("metadata", "full"), default="metadata")
    parser.add_argument("--redact-secrets", choices=("on", "off"), default="on")
    asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    main()
