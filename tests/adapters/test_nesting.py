"""The running child: which parent a delegate's call gets, inside and outside a child run."""

from __future__ import annotations

import asyncio

import pytest
from cassette_provider import ProviderRegistry, SimpleAgent
from cassette_provider.adapters.delegate import SubagentDelegate
from cassette_provider.adapters.nesting import child_running, parent_for_call, running_child


def test_outside_a_child_run_the_configured_parent_is_used() -> None:
    root = SimpleAgent("root-session")
    delegate = SubagentDelegate(ProviderRegistry(), root)
    assert running_child() is None
    assert delegate.current_parent() is root


def test_inside_a_child_run_the_child_is_the_parent_until_the_run_ends() -> None:
    root = SimpleAgent("root-session")
    child = root.spawn_child("child-session")
    grandchild = child.spawn_child("grandchild-session")
    delegate = SubagentDelegate(ProviderRegistry(), root)
    with child_running(child):
        assert delegate.current_parent() is child
        with child_running(grandchild):
            assert delegate.current_parent() is grandchild
        assert delegate.current_parent() is child
    assert delegate.current_parent() is root


def test_a_failing_child_run_restores_the_outer_parent() -> None:
    root = SimpleAgent("root-session")
    child = root.spawn_child("child-session")
    with pytest.raises(RuntimeError, match="child failed"), child_running(child):
        raise RuntimeError("child failed")
    assert parent_for_call(root) is root


async def test_concurrent_children_each_see_only_themselves() -> None:
    """Two child runs in flight together (a barrier holds both mid-run) never see each other."""
    root = SimpleAgent("root-session")
    delegate = SubagentDelegate(ProviderRegistry(), root)
    both_running = asyncio.Barrier(2)

    async def child_run(name: str) -> tuple[str, str, str]:
        child = root.spawn_child(f"{name}-session")
        with child_running(child):
            before = delegate.current_parent().id
            await both_running.wait()
            spawned = await asyncio.ensure_future(_parent_id_seen_by_a_task(delegate))
            return before, spawned, delegate.current_parent().id

    alpha, beta = await asyncio.gather(child_run("alpha"), child_run("beta"))
    assert alpha == ("alpha-session",) * 3
    assert beta == ("beta-session",) * 3
    assert delegate.current_parent() is root


async def _parent_id_seen_by_a_task(delegate: SubagentDelegate) -> str:
    """The parent a task started inside a child run sees (tasks copy the running context)."""
    return delegate.current_parent().id
