"""Running a user's pytest project in-process, as the first-hour trap tests do (issue 27)."""

from __future__ import annotations

import pytest

from support.partial_guard import leftovers_under

__all__ = ["leftovers", "run_user_project"]


def leftovers(project: pytest.Pytester) -> list[str]:
    """Partial or temporary recording files anywhere in the project."""
    return leftovers_under(project.path)


def run_user_project(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    """One pytest run of the project (no cache, pytest-asyncio's config nag silenced).

    Every run is checked to leave no partial or temporary recording behind.
    """
    result = project.runpytest(
        "-p", "no:cacheprovider", "-W", "ignore::pytest.PytestDeprecationWarning", *args
    )
    assert leftovers(project) == []
    return result
