"""Benchmark streaming verification against the floor: read lines + orjson.loads + sha256.

Generates 1,000 / 10,000 / 100,000-interaction cassettes with ../shared/bench/gen_cassette.py
into a temporary directory, then measures each workload in a fresh subprocess (time and
peak RSS via resource.getrusage; a split verify's helper process is reported on its own)
and prints ratios against the floor measured in the same run, best of --repeats
interleaved runs. Both verify modes are shown: the default (a helper process takes the
second half of a large file) and one process (`jobs=1`). Targets: verify <= 2.5x floor
at 100,000; peak RSS <= 64 MB; the 1,000 file imports + verifies as a whole process in
<= 0.15 s.

  uv run --no-sync python scripts/bench_format.py [--sizes 1000,10000,100000] [--repeats 3]
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
jobs = None if sys.argv[2] == "auto" else int(sys.argv[2])
start = time.perf_counter()
summary = verify_file(sys.argv[1], jobs=jobs)
elapsed = time.perf_counter() - start
assert summary["interactions"] > 0
own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
helper = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"seconds": elapsed, "rss_kb": own, "helper_rss_kb": helper, "summary": summary}))
"""

WHOLE = "import sys\nfrom cassette_format import verify_file\nverify_file(sys.argv[1])\n"


def run(code: str, *args: str) -> dict[str, object]:
    """One measurement in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def best_of(repeats: int, path: Path) -> tuple[dict[str, object], ...]:
    """Floor, default verify and one-process verify, interleaved; the fastest run of each."""
    best: list[dict[str, object] | None] = [None, None, None]
    for _ in range(repeats):
        runs = (run(FLOOR, str(path)), run(VERIFY, str(path), "auto"), run(VERIFY, str(path), "1"))
        for index, measured in enumerate(runs):
            kept = best[index]
            if kept is None or float(measured["seconds"]) < float(kept["seconds"]):  # type: ignore[arg-type]
                best[index] = measured
    floor, split, single = (kept for kept in best if kept is not None)
    assert split["summary"] == single["summary"], "the two modes must agree"
    return floor, split, single


def whole_process(code: str, path: Path, repeats: int = 5) -> float:
    """Best wall time of a whole `python -c code path` process."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code, str(path)], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def _seconds(measured: dict[str, object]) -> float:
    return float(measured["seconds"])  # type: ignore[arg-type]


def _megabytes(measured: dict[str, object], key: str = "rss_kb") -> float:
    return float(measured.get(key, 0)) / 1024  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeats", type=int, default=3)
    arguments = parser.parse_args()
    sizes = [int(size) for size in arguments.sizes.split(",")]
    with tempfile.TemporaryDirectory() as directory:
        rows = []
        for size in sizes:
            path = Path(directory) / f"meta-{size}.cassette.jsonl"
            subprocess.run(
                [sys.executable, str(GENERATOR), str(path), str(size), "metadata", "1000"],
                check=True,
            )
            rows.append((size, os.path.getsize(path) / 1e6, *best_of(arguments.repeats, path)))
        print(
            "default = verify_file(path): two processes for files >= 16 MiB on two free CPUs;"
            " one-process = verify_file(path, jobs=1)"
        )
        print(
            f"{'interactions':>12} {'MB':>6} {'floor s':>8} {'default s':>9} {'ratio':>6} "
            f"{'1-proc s':>8} {'ratio':>6} {'default int/s':>13} {'MB/s':>6} "
            f"{'floor RSS':>9} {'RSS':>6} {'helper RSS':>10} {'1-proc RSS':>10}"
        )
        for size, megabytes, floor, split, single in rows:
            print(
                f"{size:>12} {megabytes:>6.1f} {_seconds(floor):>8.3f} {_seconds(split):>9.3f} "
                f"{_seconds(split) / _seconds(floor):>6.2f} {_seconds(single):>8.3f} "
                f"{_seconds(single) / _seconds(floor):>6.2f} {size / _seconds(split):>13.0f} "
                f"{megabytes / _seconds(split):>6.1f} {_megabytes(floor):>9.1f} "
                f"{_megabytes(split):>6.1f} {_megabytes(split, 'helper_rss_kb'):>10.1f} "
                f"{_megabytes(single):>10.1f}"
            )
        print("(RSS in MB, peak per process; targets: ratio <= 2.5 at 100,000, RSS <= 64)")
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
