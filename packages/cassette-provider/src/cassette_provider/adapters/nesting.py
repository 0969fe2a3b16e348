"""The child agent an adapter provider is running, so calls made inside it nest beneath it.

An adapter provider runs each child inside `child_running(child)`; a delegate or tool invoked
while that child runs (in the child's task or any task it spawns) parents its calls on the child,
whose id the recorder maps to the child's call key (TOPO-5). Outside a child run nothing is set
and a delegate uses the parent it was built with.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from cassette_provider.contract.agent import ParentAgent

__all__ = ["child_running", "parent_for_call", "running_child"]

_RUNNING_CHILD: ContextVar[ParentAgent | None] = ContextVar("cassette_running_child", default=None)


def running_child() -> ParentAgent | None:
    """The child agent whose run the current task belongs to, if any."""
    return _RUNNING_CHILD.get()


def parent_for_call(configured: ParentAgent) -> ParentAgent:
    """The parent of a call made now: the running child, else the configured parent."""
    child = _RUNNING_CHILD.get()
    return configured if child is None else child


@contextmanager
def child_running(child: ParentAgent) -> Iterator[ParentAgent]:
    """Mark `child` as the running child for the body (and tasks it starts), then restore."""
    token = _RUNNING_CHILD.set(child)
    try:
        yield child
    finally:
        _RUNNING_CHILD.reset(token)
