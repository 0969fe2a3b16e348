"""Benchmark cassette_canonical.fingerprint against rfc8785 and the json.dumps floor.

Builds ~10,000 interaction-sized records (1-9 KB of canonical JSON) with the shapes of
../shared/bench/gen_cassette.py (nested dicts/lists, mostly ASCII text with escapes,
accents, CJK and an astral emoji, ints, a few floats, 1% UTF-16-order keys), checks that
all three fingerprinters agree where they should, then times each over the same objects
in this process (best of several rounds) and prints throughput and ratios.

Targets: fingerprint >= 3x rfc8785, and <= 1.5x the time of the floor
``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` + sha256
(fast but not canonical).

  uv run --no-sync python scripts/bench_canonical.py [--count 10000] [--rounds 5]
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import rfc8785
from cassette_canonical import canonical_json, fast_path, fingerprint

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_cassette.py"
TEXT_SIZES = (200, 1000, 2200, 3400, 4400)  # final-text bytes; records land in 1-9 KB


def load_generator() -> Any:
    """Import gen_cassette.py from the shared corpus without installing it."""
    spec = importlib.util.spec_from_file_location("gen_cassette", GENERATOR)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {GENERATOR}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_corpus(count: int) -> list[Any]:
    """Interaction records of mixed sizes, full request storage."""
    gen = load_generator()
    per_size = -(-count // len(TEXT_SIZES))
    records = []
    for seed, size in enumerate(TEXT_SIZES, start=1):
        maker = gen.Gen(per_size, "full", size, seed)
        records.extend(maker.make_interaction(i) for i in range(1, per_size + 1))
    return records[:count]


def ours(value: Any) -> str:
    """This package."""
    return fingerprint(value).unwrap()


def with_rfc8785(value: Any) -> str:
    """The rfc8785 package (pure-Python JCS)."""
    return "sha256:" + hashlib.sha256(rfc8785.dumps(value)).hexdigest()


def floor(value: Any) -> str:
    """Fast but not canonical: code-point key order, Python number text."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def best_time(fn: Callable[[Any], str], corpus: list[Any], rounds: int) -> float:
    """Fastest of ``rounds`` passes over the corpus, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for value in corpus:
            fn(value)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    """Build the corpus, check agreement, time, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()

    corpus = build_corpus(args.count)
    sizes = [len(canonical_json(v).unwrap().encode("utf-8")) for v in corpus]
    total_mb = sum(sizes) / 1e6
    disagree = sum(ours(v) != with_rfc8785(v) for v in corpus)
    floor_wrong = sum(ours(v) != floor(v) for v in corpus)
    print(
        f"corpus: {len(corpus)} records, {min(sizes)}-{max(sizes)} B "
        f"(mean {sum(sizes) / len(sizes):.0f} B), {total_mb:.1f} MB canonical"
    )
    print(f"fingerprint disagrees with rfc8785 on {disagree} records (must be 0)")
    print(f"json.dumps floor gives a wrong digest on {floor_wrong} records")

    accelerated = len(fast_path.ENCODERS) > 1
    all_encoders = fast_path.ENCODERS
    stdlib_encoder = all_encoders[-1:]

    def ours_stdlib(value: Any) -> str:
        """This package with the stdlib json encoder as its only fast-path encoder."""
        fast_path.ENCODERS = stdlib_encoder
        try:
            return ours(value)
        finally:
            fast_path.ENCODERS = all_encoders

    methods: dict[str, Callable[[Any], str]] = {
        "cassette_canonical.fingerprint": ours,
        "  same, stdlib json encoder only": ours_stdlib,
        "rfc8785.dumps + sha256": with_rfc8785,
        "json.dumps floor + sha256": floor,
    }
    # Rounds interleave the methods, so load from other processes hits all of them alike.
    timings = {name: float("inf") for name in methods}
    for _ in range(args.rounds):
        for name, fn in methods.items():
            timings[name] = min(timings[name], best_time(fn, corpus, 1))
    print(f"{'method':34} {'objects/s':>11} {'MB/s':>8}")
    for name, seconds in timings.items():
        print(f"{name:34} {len(corpus) / seconds:11.0f} {total_mb / seconds:8.1f}")
    ours_s = timings["cassette_canonical.fingerprint"]
    vs_rfc = timings["rfc8785.dumps + sha256"] / ours_s
    vs_floor = ours_s / timings["json.dumps floor + sha256"]
    print(f"speed-up over rfc8785: {vs_rfc:.2f}x (target >= 3x)")
    print(f"time relative to the json.dumps floor: {vs_floor:.2f}x (target <= 1.5x)")
    stdlib_only = timings["  same, stdlib json encoder only"]
    stdlib_vs_rfc = timings["rfc8785.dumps + sha256"] / stdlib_only
    stdlib_vs_floor = stdlib_only / timings["json.dumps floor + sha256"]
    print(
        f"stdlib encoder only: {stdlib_vs_rfc:.2f}x rfc8785, {stdlib_vs_floor:.2f}x the floor"
        f" (orjson accelerator {'active' if accelerated else 'not installed'})"
    )
    return 0 if disagree == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
