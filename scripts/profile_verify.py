"""Count machine instructions per line: the verify floor against one-process verify.

Wall-clock ratios on a shared machine wander by tens of percent between runs; instruction
counts under valgrind's callgrind do not (PYTHONHASHSEED is fixed). This script generates
a 1,000-interaction cassette with ../shared/bench/gen_cassette.py, counts the instructions
of three fresh interpreters that import the same modules (doing nothing more, running the
floor, running `verify_file(path)`), subtracts the import-only count and prints
instructions per line and the ratio. Needs valgrind; prints why and exits 0 without it.

  uv run --no-sync python scripts/profile_verify.py [--interactions 1000]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATOR = ROOT.parent / "shared" / "bench" / "gen_cassette.py"

WORKLOAD = """
import hashlib, sys
import orjson
import cassette_canonical.parse, cassette_format.records.decode
from cassette_format import verify_file
mode, path = sys.argv[1], sys.argv[2]
if mode == "floor":
    with open(path, "rb") as handle:
        for line in handle:
            orjson.loads(line)
            hashlib.sha256(line).digest()
elif mode == "verify":
    verify_file(path)
"""

_TOTALS = re.compile(r"^(?:summary|totals): (\d+)", re.MULTILINE)


def instructions(mode: str, path: Path, directory: Path) -> int:
    """Instructions callgrind counts for one fresh interpreter running `mode`."""
    out = directory / f"callgrind.{mode}"
    subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            f"--callgrind-out-file={out}",
            sys.executable,
            "-c",
            WORKLOAD,
            mode,
            str(path),
        ],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = _TOTALS.search(out.read_text())
    if found is None:
        raise SystemExit(f"no instruction total in {out}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--interactions", type=int, default=1000)
    size = parser.parse_args().interactions
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing measured")
        return
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch)
        path = directory / "profile.cassette.jsonl"
        subprocess.run(
            [sys.executable, str(GENERATOR), str(path), str(size), "metadata", "1000"],
            check=True,
        )
        lines = len(path.read_bytes().splitlines())
        base = instructions("none", path, directory)
        floor = (instructions("floor", path, directory) - base) / lines
        verify = (instructions("verify", path, directory) - base) / lines
    print(f"{lines} lines, instructions per line (imports subtracted)")
    print(f"  floor (orjson.loads + sha256): {floor:>9,.0f}")
    print(f"  verify_file(path):             {verify:>9,.0f}")
    print(f"  ratio:                         {verify / floor:>9.2f}")


if __name__ == "__main__":
    main()
