"""A small real tmpfs for disk-full tests, or a skip where this machine cannot mount one."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_tmpfs(directory: Path, size: str) -> Iterator[Path]:
    """Mount a tmpfs of `size` at `directory`, or skip where mounting is not allowed."""
    directory.mkdir()
    mount = shutil.which("mount")
    if mount is None or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    tried = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(directory)],
        capture_output=True,
        check=False,
    )
    if tried.returncode != 0:
        pytest.skip("this environment cannot mount a tmpfs")
    try:
        yield directory
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False)
