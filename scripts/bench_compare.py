"""Benchmark this tree against an older revision in the same run: verify, load, fingerprint, match.

The old revision's packages are exported with `git archive` into a temporary directory and
put first on `sys.path` of a fresh interpreter (this venv's third-party libraries serve
both), so both trees run the same workloads on the same generated cassettes, interleaved,
best of --repeats. Each workload uses only names public in both trees:

- verify: `verify_file` on a metadata cassette, in one process (`jobs=1` where the old
  tree still splits by default), with the process's peak RSS;
- startup: a whole `python -c` process importing cassette_format and verifying a
  1,000-interaction cassette (wall time: what `cassette verify` pays per file);
- load: `load_cassette` (typed records) on the same file;
- fingerprint: `cassette_canonical.fingerprint` over ~2 KB requests;
- match: `InteractionMatcher.build` + one `match` per root-level interaction, by its
  recorded fingerprints (lookup and consumption only).

It prints seconds for old and new and new/old (<= 1.0 is kept or better), and peak RSS
for the verify workload.

  uv run --no-sync python scripts/bench_compare.py [--base b3b76fb] [--size 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_cassette.py"
PACKAGES = ("canonical", "format", "topology", "provider", "cli")
#: The last commit before issue 15's restructuring of the functional core.
DEFAULT_BASE = "b3b76fb"

PRELUDE = """
import inspect, json, sys, time
sys.path[:0] = json.loads(sys.argv[1])
path = sys.argv[2]
small = sys.argv[3]
"""

WORKLOADS = {
    "verify": """
from cassette_format import verify_file
keywords = {"jobs": 1} if "jobs" in inspect.signature(verify_file).parameters else {}
start = time.perf_counter()
summary = verify_file(path, **keywords)
seconds = time.perf_counter() - start
assert summary["interactions"] > 0
""",
    "startup": """
from cassette_format import verify_file
keywords = {"jobs": 1} if "jobs" in inspect.signature(verify_file).parameters else {}
assert verify_file(small, **keywords)["interactions"] == 1000
seconds = 0.0
""",
    "load": """
from cassette_format import load_cassette
start = time.perf_counter()
cassette = load_cassette(path)
seconds = time.perf_counter() - start
assert len(cassette.interactions) > 0
""",
    "fingerprint": """
from cassette_canonical import fingerprint
words = "call reads the cassette and replies with a summary; é 漢字 "
requests = [
    {"label": f"worker {i % 17}",
     "prompt": [{"type": "text", "text": (words * 40)[:2000] + str(i)}],
     "agentOptions": {"model": "chat", "temperature": 0.2}, "maxDepth": 2}
    for i in range(20000)
]
start = time.perf_counter()
for request in requests:
    fingerprint(request).unwrap()
seconds = time.perf_counter() - start
""",
    "match": """
from cassette_format import load_cassette
from cassette_topology import InteractionMatcher, LiveCall, LiveParent
cassette = load_cassette(path)
roots = [i for i in cassette.interactions if i.parent_key == "root"]
parent = LiveParent("bench-root")
calls = [
    LiveCall(parent, i.parent_context_fingerprint, i.request_fingerprint,
             {"label": i.call_key.split("/")[-1]})
    for i in roots
]
start = time.perf_counter()
matcher = InteractionMatcher.build(cassette, allow_redacted_replay=True).unwrap()
for call in calls:
    matcher.match(call)
seconds = time.perf_counter() - start
assert matcher.consumed_count == len(calls) > 0, "a recorded root call failed to match"
""",
}

REPORT = """
import resource
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({'seconds': seconds, 'rss_kb': peak}))
"""


def export_tree(revision: str, into: Path) -> list[str]:
    """The source folders of every package at `revision`, exported with git archive."""
    archive = into / "tree.tar"
    with archive.open("wb") as handle:
        subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision, "packages"], stdout=handle, check=True
        )
    with tarfile.open(archive) as tar:
        tar.extractall(into / "tree", filter="data")
    return [str(into / "tree" / "packages" / f"cassette-{name}" / "src") for name in PACKAGES]


def run(workload: str, paths: list[str], cassette: Path, small: Path) -> tuple[float, float]:
    """(seconds, peak RSS in MB) of one workload in a fresh interpreter, `paths` first.

    The startup workload reports the whole process's wall time instead.
    """
    code = PRELUDE + WORKLOADS[workload] + REPORT
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", code, json.dumps(paths), str(cassette), str(small)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"{workload} failed:\n{completed.stderr[-2000:]}")
    report = json.loads(completed.stdout.splitlines()[-1])
    seconds = wall if workload == "startup" else float(report["seconds"])
    return seconds, float(report["rss_kb"]) / 1024


def _generate(path: Path, size: int) -> None:
    subprocess.run(
        [sys.executable, str(GENERATOR), str(path), str(size), "metadata", "1000"],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base", default=DEFAULT_BASE)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cassette-compare-") as scratch:
        folder = Path(scratch)
        old = export_tree(options.base, folder)
        new = [str(ROOT / "packages" / f"cassette-{name}" / "src") for name in PACKAGES]
        cassette = folder / f"meta-{options.size}.cassette.jsonl"
        small = folder / "meta-1000.cassette.jsonl"
        _generate(cassette, options.size)
        _generate(small, 1000)
        print(f"base {options.base} vs working tree, {options.size} interactions")
        print(
            f"{'workload':>12}  {'old s':>9}  {'new s':>9}  {'new/old':>8}"
            f"  {'old RSS':>8}  {'new RSS':>8}"
        )
        for workload in options.workloads.split(","):
            olds: list[tuple[float, float]] = []
            news: list[tuple[float, float]] = []
            for _ in range(options.repeats):
                olds.append(run(workload, old, cassette, small))
                news.append(run(workload, new, cassette, small))
            (best_old, old_rss), (best_new, new_rss) = min(olds), min(news)
            ratio = best_new / best_old
            memory = f"  {old_rss:>8.1f}  {new_rss:>8.1f}" if workload == "verify" else ""
            print(f"{workload:>12}  {best_old:>9.3f}  {best_new:>9.3f}  {ratio:>8.3f}{memory}")
        print("(RSS: peak MB of the verify process)")


if __name__ == "__main__":
    main()
