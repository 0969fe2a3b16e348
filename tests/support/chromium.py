"""Headless Chromium for the HTML report's browser checks, when one is installed (issue 25).

The network is closed and the machine has no display: the flags below are the ones Chromium
needs to run here at all, with a fresh profile per run so nothing is reused between runs.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Final

#: Flags for a headless, sandbox-less, offline Chromium (no GPU, no background fetches).
CHROMIUM_FLAGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
_NAMES: Final = ("chromium", "chromium-browser", "google-chrome", "chrome")
_TIMEOUT_S: Final = 120


def find_chromium() -> str | None:
    """The first Chromium on PATH, or None."""
    for name in _NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    return None


def _run(browser: str, *arguments: str) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run(
            [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *arguments],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=True,
        )
    return done.stdout


def dump_dom(browser: str, page: Path) -> str:
    """The page's DOM after its scripts ran (`--dump-dom`)."""
    return _run(browser, "--dump-dom", page.resolve().as_uri())


def screenshot(
    browser: str, page: Path, png: Path, *, width: int = 1400, height: int = 1000
) -> Path:
    """A PNG of the page at the given window size."""
    _run(browser, f"--window-size={width},{height}", f"--screenshot={png}", page.resolve().as_uri())
    return png
