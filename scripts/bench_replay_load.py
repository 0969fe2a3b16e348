"""Benchmark: installing a replay (the lazy reader) against `verify` and the streaming floor.

Generates metadata cassettes with ../shared/bench/gen_cassette.py (sizes above --tile-from
are tiled from a generated one, as scripts/bench_format.py does), then measures each
workload in a fresh interpreter, best of --repeats interleaved runs, with peak RSS from
/proc/self/status VmHWM (imports included; time excludes them):

- floor: read lines + orjson.loads + sha256 per line (parse + hash, nothing kept);
- verify: `verify_file(path)`;
- install: `install_cassette(registry, ReplayConfig(file=path))`, the replay install path:
  one verifying pass (`read_replay_index`) and the matcher built from its index;
- build: `InteractionMatcher.build(index)` alone, inside the install process (best of 5);
- match: per-match cost of root calls matched through the index (each delivery reads its
  line back, verifies and decodes it), median of chunks, the same sample size at each size.

Targets at 100,000 interactions: install / verify <= 1.0, install peak RSS <= 64 MB,
verify / floor <= 2.5 (format's), matcher build 100k / 10k <= 12, per match 100k / 1k <= 1.2.

  uv run --no-sync python scripts/bench_replay_load.py [--sizes 1000,10000,100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_format import FLOOR, PEAK, VERIFY, make_cassette

INSTALL = (
    PEAK
    + """
import json, random, statistics, sys, time
from cassette_format.read.replay_index import read_replay_index
from cassette_provider import ProviderRegistry, ReplayConfig, install_cassette
from cassette_topology import InteractionMatcher, LiveCall, LiveParent
path, matches = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
config = ReplayConfig(file=path, allow_redacted_replay=True, assert_consumed=False)
handle = install_cassette(ProviderRegistry(), config)
elapsed = time.perf_counter() - start
rss_kb = peak_kb()
index = read_replay_index(path).unwrap()
build_s = float("inf")
for _ in range(5):
    started = time.perf_counter()
    matcher = InteractionMatcher.build(index, allow_redacted_replay=True).unwrap()
    build_s = min(build_s, time.perf_counter() - started)
roots = [at for at in range(len(index)) if index.parent_key(at) == "root"]
sample = random.Random(7).sample(roots, min(matches, len(roots)))
parent = LiveParent("bench-root")
calls = []
for at in sample:
    _, context, request = index.group(at)
    calls.append(LiveCall(parent, context, request, {}))
chunks = []
for begin in range(0, len(calls), 25):
    chunk = calls[begin : begin + 25]
    began = time.perf_counter()
    for call in chunk:
        matcher.match(call).unwrap()
    chunks.append((time.perf_counter() - began) * 1e6 / len(chunk))
print(json.dumps({
    "seconds": elapsed, "rss_kb": rss_kb, "build_s": build_s,
    "match_us": statistics.median(chunks), "matched": len(calls),
}))
"""
)


def run(code: str, *args: str) -> dict[str, float]:
    """One measurement in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def best(runs: list[dict[str, float]], key: str = "seconds") -> dict[str, float]:
    """The run with the smallest `key`."""
    return min(runs, key=lambda measured: measured[key])


def measure(path: Path, repeats: int, matches: int) -> tuple[dict[str, float], ...]:
    """Floor, verify and install, interleaved; the best of each (build and match: their own)."""
    floors, verifies, installs = [], [], []
    for _ in range(repeats):
        floors.append(run(FLOOR, str(path)))
        verifies.append(run(VERIFY, str(path)))
        installs.append(run(INSTALL, str(path), str(matches)))
    install = dict(best(installs))
    install["build_s"] = best(installs, "build_s")["build_s"]
    install["match_us"] = best(installs, "match_us")["match_us"]
    return best(floors), best(verifies), install


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--tile-from", type=int, default=10000)
    arguments = parser.parse_args()
    sizes = sorted(int(size) for size in arguments.sizes.split(","))
    rows: dict[int, tuple[dict[str, float], ...]] = {}
    with tempfile.TemporaryDirectory() as directory:
        for size in sizes:
            path = make_cassette(Path(directory), size, arguments.tile_from)
            rows[size] = measure(path, arguments.repeats, arguments.matches)
            megabytes = os.path.getsize(path) / 1e6
            floor, verify, install = rows[size]
            if size == sizes[0]:
                print(
                    f"{'interactions':>12} {'MB':>6} {'floor s':>8} {'verify s':>8} "
                    f"{'install s':>9} {'inst/ver':>8} {'ver/floor':>9} {'install RSS':>11} "
                    f"{'verify RSS':>10} {'build ms':>8} {'match us':>8}"
                )
            print(
                f"{size:>12} {megabytes:>6.1f} {floor['seconds']:>8.3f} "
                f"{verify['seconds']:>8.3f} {install['seconds']:>9.3f} "
                f"{install['seconds'] / verify['seconds']:>8.2f} "
                f"{verify['seconds'] / floor['seconds']:>9.2f} "
                f"{install['rss_kb'] / 1024:>11.1f} {verify['rss_kb'] / 1024:>10.1f} "
                f"{install['build_s'] * 1e3:>8.1f} {install['match_us']:>8.1f}",
                flush=True,
            )
    largest, smallest = sizes[-1], sizes[0]
    floor, verify, install = rows[largest]
    print(f"at {largest}: install / verify {install['seconds'] / verify['seconds']:.2f} (<= 1.0)")
    print(f"at {largest}: install peak RSS {install['rss_kb'] / 1024:.1f} MB (<= 64)")
    print(f"at {largest}: verify / floor {verify['seconds'] / floor['seconds']:.2f} (<= 2.5)")
    tenth = largest // 10
    if tenth in rows:
        ratio = install["build_s"] / rows[tenth][2]["build_s"]
        print(f"matcher build {largest} / {tenth}: {ratio:.2f} (<= 12)")
    if smallest != largest:
        ratio = install["match_us"] / rows[smallest][2]["match_us"]
        print(f"per match {largest} / {smallest}: {ratio:.2f} (<= 1.2)")


if __name__ == "__main__":
    main()
