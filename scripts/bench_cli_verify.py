"""Benchmark: `cassette verify <folder>` over 200 cassettes with 1 worker vs 2 workers.

The folder holds 200 cassettes made by ../shared/bench/gen_cassette.py (a few distinct seeds,
copied; modest size), one of them corrupted by a one-byte edit inside a prompt-free result
text. Both runs go through `cassette_cli.main` in this process, best of `--repeat`. The
report is the speed-up of 2 workers over 1 (ideal 2.00x on two free cores), and the run
fails unless the corrupted file, and only it, is reported by name.

  uv run --no-sync python scripts/bench_cli_verify.py [--files 200] [--interactions 60] [--repeat 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

from cassette_cli import main

GENERATOR = Path(__file__).resolve().parents[1].parent / "shared" / "bench" / "gen_cassette.py"
DISTINCT_SEEDS = 10


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cassette", GENERATOR)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {GENERATOR}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_folder(folder: Path, files: int, interactions: int) -> Path:
    """Write `files` cassettes into `folder`; return the corrupted one."""
    generator = _generator()
    sources = []
    for seed in range(1, DISTINCT_SEEDS + 1):
        source = folder / f"seed-{seed:02d}.source"
        generator.Gen(interactions, "metadata", 1000, seed).write(str(source))
        sources.append(source)
    for index in range(files):
        shard = folder / f"shard-{index % 7}"
        shard.mkdir(exist_ok=True)
        shutil.copy(sources[index % DISTINCT_SEEDS], shard / f"run-{index:03d}.cassette.jsonl")
    for source in sources:
        source.unlink()
    corrupted = folder / f"shard-{137 % 7}" / "run-137.cassette.jsonl"
    data = bytearray(corrupted.read_bytes())
    position = data.index(b'"text":"', len(data) // 2) + len('"text":"')
    while not chr(data[position]).isalpha() or not chr(data[position]).isascii():
        position += 1  # a plain letter: the line stays valid JSON, only its hash breaks
    data[position] = ord("Z") if data[position] != ord("Z") else ord("Y")
    corrupted.write_bytes(bytes(data))
    return corrupted


def timed_verify(folder: Path, jobs: int) -> tuple[float, int, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    start = time.perf_counter()
    code = main(["verify", str(folder), "--jobs", str(jobs)], stdout=stdout, stderr=stderr)
    return time.perf_counter() - start, code, stdout.getvalue()


def main_bench() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--interactions", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-cli-verify-") as directory:
        folder = Path(directory)
        corrupted = build_folder(folder, options.files, options.interactions)
        megabytes = sum(path.stat().st_size for path in folder.rglob("*")) / 1e6
        best: dict[int, float] = {}
        reports: dict[int, str] = {}
        for _ in range(options.repeat):
            for jobs in (1, 2):
                seconds, code, report = timed_verify(folder, jobs)
                if code != 1:
                    print(f"FAILED: expected exit 1 with one corrupted file, got {code}")
                    return 1
                best[jobs] = min(best.get(jobs, seconds), seconds)
                reports[jobs] = report
        failures = [line for line in reports[2].splitlines() if line.startswith("FAIL")]
        named = len(failures) == 1 and str(corrupted) in failures[0]
        print(
            f"{options.files} cassettes, {options.interactions} interactions each, "
            f"{megabytes:.1f} MB"
        )
        print(f"1 worker : {best[1] * 1000:8.1f} ms  ({options.files / best[1]:7.1f} files/s)")
        print(f"2 workers: {best[2] * 1000:8.1f} ms  ({options.files / best[2]:7.1f} files/s)")
        print(f"speed-up 2 vs 1 workers: {best[1] / best[2]:.2f}x (ideal 2.00x)")
        print(f"same report with 1 and 2 workers: {reports[1] == reports[2]}")
        print(f"corrupted file reported by name: {named}: {failures[0] if failures else '-'}")
        return 0 if named and reports[1] == reports[2] else 1


if __name__ == "__main__":
    sys.exit(main_bench())
