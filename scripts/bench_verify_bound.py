"""How close `verify` can come to the streaming floor: the checks it cannot skip, stage by stage.

Issue 23 asks `verify` / floor <= 2.5 at 100,000 interactions, where the floor is read +
orjson.loads + sha256 per line. This script measures, each in a fresh interpreter over the
same generated cassette (scripts/bench_format.py's), best of --repeats interleaved runs:

  floor       read, orjson.loads, sha256 of the line (bench_format's FLOOR)
  +schema     and the C one-pass record check verify runs (rules.struct_fits), FMT-10
  +canonical  and the canonical-text proof of the line (cassette_canonical.is_canonical_text:
              orjson's key-sorted re-serialization compared with the bytes, number scans),
              which the reference's verdict on a non-canonical line requires (FMT-10 rule 10)
  +own hash   with sha256 over the line without its `hash` member instead of the whole line
              (read.record_line.line_hash), the digest verify compares
  verify      `verify_file(path)`: all of the above plus the chain (FMT-15..17), the key
              tables and the summary counters

Each stage calls the production function, in a plain loop with no bookkeeping at all, so
`+own hash` / floor is a lower bound on `verify` / floor for this checking design: what is
left under 2.5 is all the room per-line bookkeeping has.

  uv run --no-sync python scripts/bench_verify_bound.py [--size 100000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_format import FLOOR, PEAK, VERIFY, make_cassette, run

_STAGE = (
    PEAK
    + """
import hashlib, json, sys, time
import orjson
from cassette_canonical import is_canonical_text
from cassette_format.read.record_line import line_hash
from cassette_format.rules.struct_fits import interaction_struct_fits
stage = sys.argv[2]
schema = stage in ("schema", "canonical", "own")
canonical = stage in ("canonical", "own")
own = stage == "own"
start = time.perf_counter()
with open(sys.argv[1], "rb") as handle:
    previous = orjson.loads(handle.readline())["hash"]
    for line in handle:
        raw = line[:-1]
        value = orjson.loads(raw)
        if schema and not interaction_struct_fits(value, previous):
            raise SystemExit("a line did not plainly fit: not a benchmark cassette")
        if canonical and not is_canonical_text(raw, value):
            raise SystemExit("a line is not canonical: not a benchmark cassette")
        if own:
            previous = line_hash(raw, value["hash"])
            if previous is None:
                raise SystemExit("a line's hash is not its own: not a benchmark cassette")
        else:
            hashlib.sha256(raw).digest()
            previous = value["hash"]
elapsed = time.perf_counter() - start
print(json.dumps({"seconds": elapsed, "rss_kb": peak_kb()}))
"""
)

STAGES = (
    ("floor", None),
    ("+schema", "schema"),
    ("+canonical", "canonical"),
    ("+own hash", "own"),
    ("verify", None),
)


def measure(path: Path, repeats: int) -> dict[str, float]:
    """Seconds of each stage, the best of `repeats` interleaved rounds."""
    best: dict[str, float] = {}
    for _ in range(repeats):
        for name, stage in STAGES:
            if name == "floor":
                measured = run(FLOOR, str(path))
            elif name == "verify":
                measured = run(VERIFY, str(path))
            else:
                measured = run(_STAGE, str(path), str(stage))
            seconds = float(str(measured["seconds"]))
            best[name] = min(best.get(name, seconds), seconds)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tile-from", type=int, default=10000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = make_cassette(Path(directory), arguments.size, arguments.tile_from)
        best = measure(path, arguments.repeats)
    floor = best["floor"]
    per_line = 1e6 / arguments.size
    print(f"{'stage':<12} {'s':>7} {'us/line':>8} {'/ floor':>8}")
    for name, _ in STAGES:
        seconds = best[name]
        print(f"{name:<12} {seconds:>7.3f} {seconds * per_line:>8.1f} {seconds / floor:>8.2f}")
    bound = best["+own hash"] / floor
    room = (2.5 * floor - best["+own hash"]) * per_line
    bookkeeping = (best["verify"] - best["+own hash"]) * per_line
    print(f"checks verify cannot skip / floor: {bound:.2f} (target for verify: <= 2.5)")
    print(f"room per line for bookkeeping under 2.5: {room:.1f} us (verify: {bookkeeping:.1f})")


if __name__ == "__main__":
    main()
