"""No test leaves a partial or temporary recording in a user's project (issue 27).

Every test that builds a user's project with `pytester` is checked twice: when it ends (the
failure names the test) and again when the session ends (a writer that outlived its test:
a thread, a subprocess). tests/conftest.py imports both fixtures; tests/plugin checks that
each can fail. The format tests that interrupt a writer on purpose use `tmp_path`, not a
project, and keep their partial files to inspect them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["LEFTOVER_PATTERNS", "leftovers_under", "no_partial_left", "no_partial_left_at_the_end"]

#: What an uncommitted recording leaves beside its cassette (writer partials, rewrite staging).
LEFTOVER_PATTERNS = ("*.partial-*", "*.rewrite-*")

_PROJECTS: list[tuple[str, Path]] = []


def leftovers_under(folder: Path) -> list[str]:
    """Partial or temporary recording files anywhere under `folder`, relative and sorted."""
    return sorted(
        str(path.relative_to(folder))
        for pattern in LEFTOVER_PATTERNS
        for path in folder.rglob(pattern)
    )


@pytest.fixture(scope="session", autouse=True)
def no_partial_left_at_the_end() -> Iterator[None]:
    """At the session's end, no user project clean at its test's end holds a partial file."""
    yield
    late = {nodeid: left for nodeid, path in _PROJECTS if (left := leftovers_under(path))}
    _PROJECTS.clear()
    assert late == {}, f"partial or temporary recordings left in user projects: {late}"


@pytest.fixture(autouse=True)
def no_partial_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that builds a user's project with `pytester` leaves no partial file in it."""
    if "pytester" not in request.fixturenames:
        yield
        return
    project: Path = request.getfixturevalue("pytester").path
    yield
    left = leftovers_under(project)
    assert left == [], f"{request.node.nodeid} left partial or temporary recordings: {left}"
    _PROJECTS.append((request.node.nodeid, project))  # clean now: checked again at the end
