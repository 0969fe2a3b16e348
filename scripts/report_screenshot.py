"""A PNG screenshot of `cassette report` for the demo cassette, to check that the page reads well.

Runs `cassette demo --dir DIR` (a recording and its variant), writes the report of the variant
against the recording, screenshots it with headless Chromium and prints the PNG's path.

  uv run --no-sync python scripts/report_screenshot.py [--dir DIR] [--width 1400] [--height 1000]
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from pathlib import Path

from cassette_cli import main

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.chromium import find_chromium, screenshot


def _cassette(*args: str) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=stdout, stderr=stderr)
    if code != 0:
        raise SystemExit(f"cassette {' '.join(args)} failed ({code}): {stderr.getvalue()}")


def run(directory: Path, width: int, height: int) -> Path:
    """Demo cassettes, their report and its screenshot under `directory`; the PNG's path."""
    browser = find_chromium()
    if browser is None:
        raise SystemExit("no Chromium found on PATH (Debian: apt-get install chromium)")
    _cassette("demo", "--dir", str(directory))
    recorded = directory / "recorded.cassette.jsonl"
    variant = directory / "variant.cassette.jsonl"
    page = directory / "report.html"
    _cassette("report", str(variant), "--against", str(recorded), "-o", str(page))
    return screenshot(browser, page, directory / "report.png", width=width, height=height)


def main_cli() -> None:
    """Parse the options, build everything and print the screenshot's path."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=None, help="where to write (default: temp)")
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1000)
    options = parser.parse_args()
    directory = options.dir or Path(tempfile.mkdtemp(prefix="cassette-report-"))
    directory.mkdir(parents=True, exist_ok=True)
    print(run(directory, options.width, options.height))


if __name__ == "__main__":
    main_cli()
