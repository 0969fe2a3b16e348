"""Running a user's pytest project in-process, as the first-hour trap tests do (issue 27)."""

from __future__ import annotations

import pytest

__all__ = ["leftovers", "run_user_project"]


def leftovers(project: pytest.Pytester) -> list[str]:
    """Partial or temporary recording files anywhere in the project."""
    return sorted(
        str(path.relative_to(project.path))
        for pattern in ("*.partial-*", "*.rewrite-*")
        for path in project.path.rglob(pattern)
    )


def run_user_project(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    """One pytest run of the project (no cache, pytest-asyncio's config nag silenced).

    Every run is checked to leave no partial or temporary recording behind.
    """
    result = project.runpytest(
        "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestDeprecationWarning", *args
    )
    assert leftovers(project) == []
    return result
