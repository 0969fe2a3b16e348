"""File-system faults while opening a writer are CassetteFormatErrors naming the path (issue 12)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cassette_format import CassetteFormatError, CassetteWriter

from format.builders import make_header


def test_a_directory_that_cannot_be_created_names_the_cassette(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_bytes(b"")
    target = blocker / "deeper" / "c.cassette.jsonl"
    with pytest.raises(CassetteFormatError) as refused:
        CassetteWriter.open_blocking(target, make_header(), "create")
    assert str(target) in str(refused.value)
    assert "cannot create the directory" in str(refused.value)
    assert not os.path.exists(f"{target}.writer.lock")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_a_read_only_parent_names_the_cassette(tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        target = parent / "missing" / "c.cassette.jsonl"
        with pytest.raises(CassetteFormatError, match="cannot create the directory"):
            CassetteWriter.open_blocking(target, make_header(), "create")
    finally:
        parent.chmod(0o700)


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs procfs")
def test_a_pseudo_file_system_names_the_cassette() -> None:
    target = Path("/proc/self/no-such-directory/c.cassette.jsonl")
    with pytest.raises(CassetteFormatError) as refused:
        CassetteWriter.open_blocking(target, make_header(), "create")
    assert str(target) in str(refused.value)
