"""What the cassette pytest plugin adds to the start-up of a pytest run that never uses it.

pytest loads the `cassette` entry point in every run on a machine where cassette-provider is
installed. This script times `pytest --collect-only` over one trivial test file, alternating
runs with the plugin (as installed) and without it (`-p no:cassette`, the floor measured in
the same run), and prints the median of each and their ratio. It also prints the number of
`cassette_*` modules the plugin run imported (the import test asserts the exact set).

  uv run --no-sync python scripts/bench_plugin_import.py [--runs 15]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_TEST = "def test_trivial():\n    assert True\n"
_CONFTEST = """
import sys

def pytest_unconfigure(config):
    loaded = [name for name in sys.modules if name.startswith("cassette_")]
    sys.stderr.write(f"cassette modules: {len(loaded)}\\n")
"""
_BASE = ["-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]


def _run(directory: Path, extra: list[str]) -> tuple[float, str]:
    """One pytest start-up in a fresh interpreter: (seconds, stderr)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, *_BASE, *extra, str(directory)],
        cwd=directory,
        capture_output=True,
        text=True,
        check=True,
    )
    return time.perf_counter() - started, done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        (directory / "test_trivial.py").write_text(_TEST)
        (directory / "conftest.py").write_text(_CONFTEST)
        _run(directory, [])  # warm the file-system cache and bytecode
        with_plugin: list[float] = []
        floor: list[float] = []
        modules = ""
        for _ in range(runs):
            seconds, stderr = _run(directory, [])
            with_plugin.append(seconds)
            modules = stderr.strip().splitlines()[-1]
            floor.append(_run(directory, ["-p", "no:cassette"])[0])
    plugin_s, floor_s = statistics.median(with_plugin), statistics.median(floor)
    print(f"pytest start-up, median of {runs} runs each")
    print(f"  without the plugin (-p no:cassette): {floor_s * 1000:8.1f} ms   (floor)")
    print(f"  with the plugin:                     {plugin_s * 1000:8.1f} ms")
    print(f"  added by the plugin: {(plugin_s - floor_s) * 1000:+.1f} ms")
    print(f"  ratio plugin / floor: {plugin_s / floor_s:.3f}")
    print(f"  {modules} (with the plugin loaded)")


if __name__ == "__main__":
    main()
