"""Benchmark streaming verification against the floor: read lines + orjson.loads + sha256.

Generates 1,000 / 10,000 / 100,000-interaction cassettes with ../shared/bench/gen_cassette.py
into a temporary directory, then measures each workload in a fresh subprocess (time and
peak RSS from /proc/self/status VmHWM) and prints ratios against the floor measured in the same
run, best of --repeats interleaved runs. `verify_file` always runs in one process. Targets:
verify <= 2.5x floor at 100,000; peak RSS <= 64 MB, also at 1,000,000; the 1,000 file
imports + verifies as a whole process in <= 0.15 s.

The generator writes about 1 ms of CPU per interaction, so 1,000,000 takes a while;
`--tile-from N` instead generates N interactions and tiles them up to each larger size
(every copy gets its own call keys, parent keys and request fingerprints, shifted sequences
and a re-hashed chain: the same shape, groups and line sizes, still canonical and valid).

  uv run --no-sync python scripts/bench_format.py [--sizes 1000,10000,100000] [--repeats 3]
  uv run --no-sync python scripts/bench_format.py --sizes 1000000 --repeats 1 [--tile-from 100000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_cassette.py"

# Peak RSS of this process alone: Linux carries a parent's ru_maxrss across fork + exec, so
# the (large, after tiling) bench process would show through; VmHWM is the new image's own.
PEAK = """
import resource
def peak_kb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
"""

FLOOR = (
    PEAK
    + """
import hashlib, json, sys, time
import orjson
start = time.perf_counter()
count = 0
with open(sys.argv[1], "rb") as handle:
    for line in handle:
        orjson.loads(line)
        hashlib.sha256(line).digest()
        count += 1
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "rss_kb": peak_kb()}))
"""
)

VERIFY = (
    PEAK
    + """
import json, sys, time
from cassette_format import verify_file
start = time.perf_counter()
summary = verify_file(sys.argv[1])
elapsed = time.perf_counter() - start
assert summary["interactions"] > 0
print(json.dumps({"seconds": elapsed, "rss_kb": peak_kb(), "summary": summary}))
"""
)

WHOLE = "import sys\nfrom cassette_format import verify_file\nverify_file(sys.argv[1])\n"

_HASH = b'"hash":"sha256:'


def _member(name: str, value: object) -> bytes:
    return b'"' + name.encode() + b'":' + orjson.dumps(value)


def _rehashed(line: bytes, previous: str) -> tuple[bytes, str]:
    """The line pointing at `previous`, with its hash recomputed over the canonical body."""
    start = line.index(_HASH)
    stop = start + len(_HASH) + 64 + 2
    body = line[:start] + line[stop:]
    old_previous = body.index(b'"previousHash":"sha256:') + len('"previousHash":"')
    body = body[:old_previous] + previous.encode() + body[old_previous + 71 :]
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    return body[:start] + _HASH[:-7] + digest.encode() + b'",' + body[start:], digest


def _copy(line: bytes, copy: int, shift: int) -> bytes:
    """Copy number `copy` of an interaction line: its own keys, fingerprint and sequence."""
    record = orjson.loads(line)
    changes = {name: f"{record[name]}#{copy}" for name in ("callKey", "parentKey")}
    if record["parentKey"] == "root":
        del changes["parentKey"]
    fingerprint = record["requestFingerprint"]
    changes["requestFingerprint"] = (
        "sha256:" + hashlib.sha256(f"{fingerprint}#{copy}".encode()).hexdigest()
    )
    changes["sequence"] = record["sequence"] + shift
    for name, value in changes.items():
        line = line.replace(_member(name, record[name]), _member(name, value), 1)
    return line


def tile(source: Path, target: Path, size: int) -> None:
    """`size` interactions from whole copies of `source`'s (see the module docstring)."""
    header, *lines = source.read_bytes().splitlines()
    if size % len(lines):
        raise SystemExit(f"--tile-from must divide {size}")
    previous = str(orjson.loads(header)["hash"])
    with target.open("wb") as out:
        out.write(header + b"\n")
        for copy in range(size // len(lines)):
            for line in lines:
                fresh = _copy(line, copy, copy * len(lines)) if copy else line
                rehashed, previous = _rehashed(fresh, previous)
                out.write(rehashed + b"\n")


def make_cassette(directory: Path, size: int, tile_from: int | None) -> Path:
    """A metadata cassette of `size` interactions: generated, or tiled from a generated one."""
    path = directory / f"meta-{size}.cassette.jsonl"
    source_size = size if tile_from is None or size <= tile_from else tile_from
    source = directory / f"meta-{source_size}.cassette.jsonl"
    if not source.exists():
        subprocess.run(
            [sys.executable, str(GENERATOR), str(source), str(source_size), "metadata", "1000"],
            check=True,
        )
    if source != path:
        tile(source, path, size)
    return path


def run(code: str, *args: str) -> dict[str, object]:
    """One measurement in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    result: dict[str, object] = json.loads(out.stdout)
    return result


def best_of(repeats: int, path: Path) -> tuple[dict[str, object], dict[str, object]]:
    """Floor and verify, interleaved; the fastest run of each."""
    best: list[dict[str, object] | None] = [None, None]
    for _ in range(repeats):
        runs = (run(FLOOR, str(path)), run(VERIFY, str(path)))
        for index, measured in enumerate(runs):
            kept = best[index]
            if kept is None or float(measured["seconds"]) < float(kept["seconds"]):  # type: ignore[arg-type]
                best[index] = measured
    floor, verify = (kept for kept in best if kept is not None)
    return floor, verify


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
    parser.add_argument("--tile-from", type=int, default=None)
    arguments = parser.parse_args()
    sizes = [int(size) for size in arguments.sizes.split(",")]
    with tempfile.TemporaryDirectory() as directory:
        rows = []
        for size in sizes:
            path = make_cassette(Path(directory), size, arguments.tile_from)
            rows.append((size, os.path.getsize(path) / 1e6, *best_of(arguments.repeats, path)))
        print("verify = verify_file(path), in one process")
        print(
            f"{'interactions':>12} {'MB':>7} {'floor s':>8} {'verify s':>8} {'ratio':>6} "
            f"{'int/s':>8} {'MB/s':>6} {'floor RSS':>9} {'RSS':>6} {'B/interaction':>13}"
        )
        for size, megabytes, floor, verify in rows:
            extra = (_megabytes(verify) - _megabytes(floor)) * 1024 * 1024 / size
            print(
                f"{size:>12} {megabytes:>7.1f} {_seconds(floor):>8.3f} {_seconds(verify):>8.3f} "
                f"{_seconds(verify) / _seconds(floor):>6.2f} {size / _seconds(verify):>8.0f} "
                f"{megabytes / _seconds(verify):>6.1f} {_megabytes(floor):>9.1f} "
                f"{_megabytes(verify):>6.1f} {extra:>13.1f}"
            )
        print(
            "(RSS in MB, peak of the process; B/interaction = RSS above the floor's, per"
            " interaction; targets: ratio <= 2.5 at 100,000, RSS <= 64)"
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
