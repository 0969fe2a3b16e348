"""What one recorded call must spend in C-level work alone, against issue 24's 100 us target.

Recording a call proves three values lossless and canonical (the request, the parent
context, the result), fingerprints two of them, asks the secret gate about the result's
strings, then seals and writes one line. Each of those has a library primitive at its
core; this script times only those primitives, on the payloads scripts/bench_record.py
records (drawn by ../shared/bench/gen_cassette.py), with no bookkeeping around them:

  canonical text   orjson's key-sorted text of request, context and result (one each)
  fingerprints     sha256 of the request's and the context's canonical text
  secret gate      the recorder's gate verdict over the strings and keys of the result
                   (live.redact._clean_strings; the snapshot walk that collects them
                   is not counted)
  line             orjson.dumps of the record with the result's text embedded as is,
                   sha256 of the line, os.write of it to a file

Also printed, not counted: `fresh copy`, orjson.loads of each text, the cheapest plain
deep copy there is, for where a value must be kept as objects rather than as its text.

The sum is a lower bound on record overhead per call for this design: what is left under
the 100 us target is all the room the recorder's own Python work (admission, topology,
the run's state machine, the asyncio hops, Results) has. Last, an idealized recorder
(`_Idealized`: those primitives around a real awaited upstream call with the least glue and
none of the guarantees) is timed over the bare upstream, all calls concurrent.

  uv run --no-sync python scripts/bench_record_bound.py [--calls 1000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import orjson
from cassette_provider.live.redact import _clean, _clean_strings
from cassette_provider.live.snapshot import Strings, canonical_snapshot

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_record import Call, UpstreamError, draw

_SORTED = orjson.OPT_SORT_KEYS | orjson.OPT_STRICT_INTEGER
TARGET_US = 100.0
_ZERO = "sha256:" + "0" * 64
COUNTED = ("canonical text", "fingerprints", "secret gate", "line")


def _line(
    request: dict[str, Any],
    outcome: dict[str, Any],
    fingerprints: tuple[str, str] = (_ZERO, _ZERO),
    chain: tuple[int, str] = (1, _ZERO),
) -> dict[str, Any]:
    """A record shaped like a recorded interaction: its result embedded as text in `outcome`."""
    occurrence, previous = chain
    return {
        "callKey": f"root/{request.get('label')}~{occurrence}",
        "kind": "cassette/interaction",
        "local": True,
        "occurrence": occurrence,
        "outcome": outcome,
        "parentContextFingerprint": fingerprints[0],
        "parentKey": "root",
        "previousHash": previous,
        "published": True,
        "request": {"metadata": {"label": request.get("label")}, "storage": "metadata"},
        "requestFingerprint": fingerprints[1],
        "sequence": occurrence,
        "timing": {"durationMs": 1.5, "startLatencyMs": 0.1, "startedAt": "2026-12-04T00:00:00Z"},
    }


def _result_outcome(text: bytes) -> dict[str, Any]:
    return {"kind": "result", "redactions": 0, "result": orjson.Fragment(text)}


Upstream = Callable[[dict[str, Any]], Awaitable[object]]


class _Idealized:
    """The least a recorder can do around an upstream call, with none of the guarantees.

    Texts instead of snapshots (so a caller's later mutation is not guarded against), no
    lossless or schema checks, no abort, dispose or clock, a dict for occurrences instead of
    the topology tracker, one write per line: the primitives above plus minimal glue.
    """

    def __init__(self, descriptor: int, upstream: Upstream) -> None:
        self.descriptor = descriptor
        self.upstream = upstream
        self.previous = _ZERO
        self.occurrences: dict[tuple[str, str], int] = {}

    async def call(self, request: dict[str, Any], context: dict[str, Any]) -> object:
        request_text = orjson.dumps(request, option=_SORTED)
        context_text = orjson.dumps(context, option=_SORTED)
        fingerprints = (
            "sha256:" + hashlib.sha256(context_text).hexdigest(),
            "sha256:" + hashlib.sha256(request_text).hexdigest(),
        )
        occurrence = self.occurrences.get(fingerprints, 0) + 1
        self.occurrences[fingerprints] = occurrence
        try:
            result = await self.upstream(request)
        except Exception:  # an upstream failure is recorded, not raised here
            result = None
            outcome = {"error": {"message": "-", "name": "Error"}, "kind": "result-error"}
        else:
            _clean(result)
            outcome = _result_outcome(orjson.dumps(result, option=_SORTED))
        line = orjson.dumps(_line(request, outcome, fingerprints, (occurrence, self.previous)))
        self.previous = "sha256:" + hashlib.sha256(line).hexdigest()
        os.write(self.descriptor, line + b"\n")
        return result


async def _idealized_overhead(calls: list[Call], descriptor: int, rounds: int) -> float:
    """Median overhead per call of `_Idealized` over the bare upstream, all calls concurrent."""
    answers = {call.request["label"]: call for call in calls}

    async def upstream(request: dict[str, Any]) -> object:
        call = answers[request["label"]]
        if call.kind != "result":
            raise UpstreamError(call.answer)
        return call.answer

    async def bare(request: dict[str, Any]) -> object:
        try:
            return await upstream(request)
        except UpstreamError:
            return None

    context: dict[str, Any] = {"options": {"model": "bench"}, "sessionId": "bench"}
    requests = [call.request for call in calls]
    samples = []
    for _ in range(rounds):
        began = time.perf_counter()
        await asyncio.gather(*(bare(request) for request in requests))
        direct = time.perf_counter() - began
        recorder = _Idealized(descriptor, upstream)

        async def recorded(request: dict[str, Any], recorder: _Idealized = recorder) -> object:
            return await recorder.call(request, context)

        began = time.perf_counter()
        await asyncio.gather(*(recorded(request) for request in requests))
        samples.append((time.perf_counter() - began - direct) / len(requests) * 1e6)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    calls = draw(arguments.calls)
    requests = [call.request for call in calls]
    results = [call.answer if isinstance(call.answer, dict) else {} for call in calls]
    context: dict[str, Any] = {"options": {"model": "bench"}, "sessionId": "bench"}
    request_texts = [orjson.dumps(request, option=_SORTED) for request in requests]
    result_texts = [orjson.dumps(result, option=_SORTED) for result in results]
    collected = [Strings() for _ in results]
    for result, strings in zip(results, collected, strict=True):
        canonical_snapshot(result, strings)
    records = [
        _line(request, _result_outcome(text))
        for request, text in zip(requests, result_texts, strict=True)
    ]

    with tempfile.TemporaryDirectory() as directory:
        descriptor = os.open(Path(directory) / "bound.jsonl", os.O_WRONLY | os.O_CREAT, 0o600)
        stages: list[tuple[str, Callable[[], object]]] = [
            (
                "canonical text",
                lambda: [
                    (
                        orjson.dumps(request, option=_SORTED),
                        orjson.dumps(context, option=_SORTED),
                        orjson.dumps(result, option=_SORTED),
                    )
                    for request, result in zip(requests, results, strict=True)
                ],
            ),
            (
                "fresh copy",
                lambda: [
                    (
                        orjson.loads(request),
                        orjson.loads(b'{"sessionId":"bench"}'),
                        orjson.loads(result),
                    )
                    for request, result in zip(request_texts, result_texts, strict=True)
                ],
            ),
            (
                "fingerprints",
                lambda: [
                    (hashlib.sha256(text).hexdigest(), hashlib.sha256(b"{}").hexdigest())
                    for text in request_texts
                ],
            ),
            ("secret gate", lambda: [_clean_strings(strings) for strings in collected]),
            (
                "line",
                lambda: [
                    os.write(descriptor, line + hashlib.sha256(line).hexdigest().encode() + b"\n")
                    for line in map(orjson.dumps, records)
                ],
            ),
        ]
        per_call: dict[str, float] = {}
        for name, stage in stages:
            samples = []
            for _ in range(arguments.rounds):
                began = time.perf_counter()
                stage()
                samples.append((time.perf_counter() - began) / arguments.calls * 1e6)
            per_call[name] = statistics.median(samples)
        idealized = asyncio.run(_idealized_overhead(calls, descriptor, arguments.rounds))
        os.close(descriptor)

    for name, microseconds in per_call.items():
        counted = "" if name in COUNTED else "  (not counted)"
        print(f"{name:<16} {microseconds:7.1f} us/call{counted}")
    total = sum(per_call[name] for name in COUNTED)
    print(f"{'sum':<16} {total:7.1f} us/call (record overhead target <= {TARGET_US:.0f})")
    print(
        f"room per call for the recorder's Python work under the target: {TARGET_US - total:.1f} us"
    )
    print(
        f"idealized recorder (the primitives, least glue, none of the guarantees): "
        f"{idealized:.1f} us/call over the bare upstream, {arguments.calls} concurrent"
    )


if __name__ == "__main__":
    main()
