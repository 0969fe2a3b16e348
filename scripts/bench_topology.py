"""Benchmark: matcher index build and per-match cost at 1k / 10k / 100k interactions.

Per match = request normalization (field selection, as the provider does) + both
fingerprints (cassette_canonical.fingerprint) + lookup + consumption. The floor, measured in
the same run on the same requests, is normalization + both fingerprints alone; the report
gives the matcher's share above it and the 100k/1k ratio (target: flat within 1.2x).

  uv run --no-sync python scripts/bench_topology.py [--sizes 1000,10000,100000] [--matches 2000]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import time
from collections.abc import Mapping

from cassette_canonical import fingerprint
from cassette_format import CassetteFile
from cassette_format.records import (
    Capabilities,
    CassetteHeader,
    CassetteInteraction,
    MetadataRequestView,
    ProviderFacts,
    ResultOutcome,
    Timing,
)
from cassette_topology import (
    InteractionMatcher,
    LiveCall,
    LiveParent,
    call_key,
    request_metadata,
)
from returns.result import Success

PARENT_CONTEXT = {"options": {"model": "bench"}, "session": {"cwd": "/work"}}
REQUEST_FIELDS = ("label", "prompt", "agentOptions", "outputSchema", "maxDepth", "toolFilter")
PROMPT_BYTES = 2000
CHUNK = 50
HASH = "sha256:" + "0" * 64


HEADER = CassetteHeader(
    cassette_id="00000000-0000-4000-8000-000000000000",
    created_at="2026-01-01T00:00:00.000Z",
    provider=ProviderFacts("cassette", "spawn", Capabilities(True, True, True, True), False),
    request_storage="metadata",
    redact_secrets=True,
    redaction_patterns=(),
    hash="sha256:" + "0" * 64,
)


def raw_request(index: int) -> dict[str, object]:
    """A ~2 KB start request with fields normalization drops (signal, parent)."""
    words = f"call {index} reads the cassette and replies with a summary; é 漢字 "
    text = (words * (PROMPT_BYTES // len(words.encode()) + 1))[:PROMPT_BYTES]
    return {
        "label": f"worker {index % 17}",
        "prompt": [{"type": "text", "text": text}],
        "agentOptions": {"provider": "deepseek", "model": "chat", "temperature": 0.2},
        "maxDepth": 2,
        "signal": object(),
        "parent": object(),
    }


def normalize(request: Mapping[str, object]) -> dict[str, object]:
    return {name: request[name] for name in REQUEST_FIELDS if name in request}


def digest(value: object) -> str:
    return fingerprint(value).unwrap()


def context_fingerprint() -> str:
    return digest({"kind": "dsh-subagent/parent-context", "value": PARENT_CONTEXT})


def synthesize(count: int, pcf: str) -> tuple[CassetteFile, list[dict[str, object]]]:
    records = []
    requests = []
    for index in range(count):
        request = raw_request(index)
        normalized = normalize(request)
        rf = digest(normalized)
        label = normalized["label"]
        assert isinstance(label, str)
        records.append(
            CassetteInteraction(
                sequence=index + 1,
                call_key=call_key("root", label, pcf, rf, 1).unwrap(),
                parent_key="root",
                parent_context_fingerprint=pcf,
                occurrence=1,
                request_fingerprint=rf,
                request=MetadataRequestView(request_metadata(normalized).unwrap()),
                timing=Timing("2026-01-01T00:00:00.000Z", 1.0, 2.0),
                published=True,
                local=False,
                outcome=ResultOutcome({"output": [], "stopReason": "completed"}, 0),
                previous_hash=HASH,
                hash=HASH,
            )
        )
        requests.append(request)
    return CassetteFile(HEADER, tuple(records)), requests


def live(request: Mapping[str, object], parent: LiveParent) -> LiveCall:
    normalized = normalize(request)
    return LiveCall(
        parent,
        digest({"kind": "dsh-subagent/parent-context", "value": PARENT_CONTEXT}),
        digest(normalized),
        normalized,
    )


def measure(count: int, matches: int, seed: int) -> tuple[float, float, float, float]:
    pcf = context_fingerprint()
    cassette, requests = synthesize(count, pcf)
    started = time.perf_counter()
    matcher = InteractionMatcher.build(cassette).unwrap()
    build_s = time.perf_counter() - started
    sample = random.Random(seed).sample(requests, min(matches, count))
    parent = LiveParent("bench-root")
    floor_us: list[float] = []
    match_us: list[float] = []
    gc.collect()
    gc.disable()
    try:
        # Interleave floor and match chunks over the same requests so load noise hits both.
        for start in range(0, len(sample), CHUNK):
            chunk = sample[start : start + CHUNK]
            began = time.perf_counter()
            for request in chunk:
                live(request, parent)
            floor_us.append((time.perf_counter() - began) * 1e6 / len(chunk))
            began = time.perf_counter()
            for request in chunk:
                if not isinstance(matcher.match(live(request, parent)), Success):
                    raise SystemExit("a recorded request failed to match")
            match_us.append((time.perf_counter() - began) * 1e6 / len(chunk))
    finally:
        gc.enable()
    if matcher.consumed_count != len(sample):
        raise SystemExit(f"expected {len(sample)} matches, got {matcher.consumed_count}")
    # The matcher alone: lookup + consumption of pre-fingerprinted calls on a fresh index.
    fresh = InteractionMatcher.build(cassette).unwrap()
    calls = [live(request, parent) for request in sample]
    lookup_chunks: list[float] = []
    gc.collect()
    gc.disable()
    try:
        for start in range(0, len(calls), CHUNK):
            chunk = calls[start : start + CHUNK]
            began = time.perf_counter()
            for prepared in chunk:
                fresh.match(prepared)
            lookup_chunks.append((time.perf_counter() - began) * 1e6 / len(chunk))
    finally:
        gc.enable()
    lookup_us = statistics.median(lookup_chunks)
    return build_s, statistics.median(match_us), statistics.median(floor_us), lookup_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    results: dict[int, tuple[float, float, float, float]] = {}
    print(
        f"{'interactions':>12}  {'build ms':>9}  {'match us':>9}  {'floor us':>9}"
        f"  {'match/floor':>11}  {'lookup us':>9}"
    )
    for size in sizes:
        build_s, match_us, floor_us, lookup_us = measure(size, options.matches, options.seed)
        results[size] = (build_s, match_us, floor_us, lookup_us)
        print(
            f"{size:>12}  {build_s * 1e3:>9.1f}  {match_us:>9.2f}  {floor_us:>9.2f}"
            f"  {match_us / floor_us:>11.3f}  {lookup_us:>9.2f}"
        )
    smallest, largest = min(sizes), max(sizes)
    ratio = results[largest][1] / results[smallest][1]
    lookup_ratio = results[largest][3] / results[smallest][3]
    print(f"per-match ratio {largest}/{smallest}: {ratio:.3f} (target <= 1.2)")
    print(f"lookup+consumption ratio {largest}/{smallest}: {lookup_ratio:.3f}")
    print(f"per-match at {largest}: {results[largest][1]:.2f} us (target <= 35 us on ~2 KB)")


if __name__ == "__main__":
    main()
