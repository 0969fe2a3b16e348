"""`async def` tests with a subagent cassette run without any pytest-asyncio configuration.

pytest itself refuses coroutine tests ("async def functions are not natively supported").
pytest-asyncio runs them in auto mode, or in strict mode when marked `asyncio`; anyio runs
those marked `anyio` (or given `anyio_backend`); pytest-trio those marked `trio`. A coroutine
test that uses the cassette and none of those would take is run here, on the private event
loop the cassette is installed and disposed on, so the user's first async test works as
written. Loaded only by tests that use the cassette.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

import pytest

__all__ = ["call_arguments", "is_unclaimed_coroutine_test"]

#: Markers under which another plugin runs a coroutine test on its own loop.
_RUNNER_MARKERS: Final = ("asyncio", "anyio", "trio")


_is_pytest_asyncio_test: Callable[[pytest.Item], object] | None
try:  # pytest-asyncio is optional: without it, no coroutine test is claimed by it
    from pytest_asyncio import is_async_test as _is_pytest_asyncio_test
except ImportError:  # pragma: no cover - pytest-asyncio is in the dev group
    _is_pytest_asyncio_test = None


def _claimed_by_pytest_asyncio(item: pytest.Item) -> bool:
    """pytest-asyncio (auto mode, or a marked test in strict mode) runs this item."""
    return _is_pytest_asyncio_test is not None and bool(_is_pytest_asyncio_test(item))


def is_unclaimed_coroutine_test(item: pytest.Item) -> bool:
    """A coroutine test no installed async plugin will run (so the cassette plugin runs it)."""
    function = getattr(item, "obj", None)
    if not inspect.iscoroutinefunction(function):
        return False
    if any(item.get_closest_marker(name) is not None for name in _RUNNER_MARKERS):
        return False
    if "anyio_backend" in getattr(item, "fixturenames", ()):
        return False
    return not _claimed_by_pytest_asyncio(item)


def call_arguments(function: Callable[..., Any], funcargs: dict[str, Any]) -> dict[str, Any]:
    """The fixture values the test function's own parameters name."""
    names = inspect.signature(function).parameters
    return {name: funcargs[name] for name in names if name in funcargs}
