"""Benchmark streaming verification against the floor: read lines + orjson.loads + sha256.

Generates 1,000 / 10,000 / 100,000-interaction cassettes with ../shared/bench/gen_cassette.py
into a temporary directory, then measures each workload in a fresh subprocess (time and
peak RSS via resource.getrusage) and prints ratios against the floor measured in the
same run. Targets: verify <= 2.5x floor at 100,000; peak RSS <= 64 MB; the 1,000 file
imports + verifies as a whole process in <= 0.15 s.

  uv run --no-sync python scripts/bench_format.py [--sizes 1000,10000,100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_cassette.py"

FLOOR = """
import hashlib, json, resource, sys, time
import orjson
start = time.perf_counter()
count = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        orjson.loads(line)
        hashlib.sha256(line).digest()
        count += 1
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "rss_kb": peak}))
"""

VERIFY = """
import json, resource, sys, time
from cassette_format import verify_file
start = time.perf_counter()
summary = verify_file(sys.argv[1])
elapsed = time.perf_counter() - start
assert summary["interactions"] > 0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "rss_kb": peak}))
"""

WHOLE = "import sys\nfrom cassette_format import verify_file\nverify_file(sys.argv[1])\n"


def run(code: str, path: Path) -> dict[str, float]:
    """One measurement in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def whole_process(code: str, path: Path, repeats: int = 5) -> float:
    """Best wall time of a whole `python -c code path` process."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, str(path)], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    sizes = [int(size) for size in parser.parse_args().sizes.split(",")]
    with tempfile.TemporaryDirectory() as directory:
        rows = []
        for size in sizes:
            path = Path(directory) / f"meta-{size}.cassette.jsonl"
            subprocess.run(
                [sys.executable, str(GENERATOR), str(path), str(size), "metadata", "1000"],
                check=True,
            )
            megabytes = os.path.getsize(path) / 1e6
            floor = run(FLOOR, path)
            verify = run(VERIFY, path)
            rows.append((size, megabytes, floor, verify))
        print(
            f"{'interactions':>12} {'MB':>7} {'floor s':>8} {'verify s':>9} {'ratio':>6} "
            f"{'verify int/s':>13} {'verify MB/s':>11} {'floor RSS MB':>12} {'verify RSS MB':>13}"
        )
        for size, megabytes, floor, verify in rows:
            ratio = verify["seconds"] / floor["seconds"]
            print(
                f"{size:>12} {megabytes:>7.1f} {floor['seconds']:>8.3f} {verify['seconds']:>9.3f} "
                f"{ratio:>6.2f} {size / verify['seconds']:>13.0f} "
                f"{megabytes / verify['seconds']:>11.1f} {floor['rss_kb'] / 1024:>12.1f} "
                f"{verify['rss_kb'] / 1024:>13.1f}"
            )
        if 1000 in sizes:
            small = Path(directory) / "meta-1000.cassette.jsonl"
            empty = whole_process("pass", small)
            whole = whole_process(WHOLE, small)
            print(
                f"whole process, import + verify 1,000: {whole:.3f} s "
                f"(bare interpreter {empty:.3f} s; target <= 0.150 s)"
            )


if __name__ == "__main__":
    main()
