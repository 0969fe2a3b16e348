"""`start_eagerly`: a coroutine stepped at once, ended as a task would end it (issue 24)."""

from __future__ import annotations

import asyncio

import pytest
from cassette_provider.contract.eager import start_eagerly


async def _value() -> int:
    return 7


async def _fails() -> int:
    raise ValueError("boom")


async def _cancelled() -> int:
    raise asyncio.CancelledError


async def test_a_coroutine_that_never_waits_is_settled_at_once() -> None:
    done = start_eagerly(_value())
    assert done.done()
    assert done.result() == 7
    failed = start_eagerly(_fails())
    assert isinstance(failed.exception(), ValueError)
    assert start_eagerly(_cancelled()).cancelled()


async def test_a_coroutine_that_waits_goes_on_in_a_task_with_what_it_awaits() -> None:
    gate: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    steps: list[str] = []

    async def waits() -> str:
        steps.append("started")
        await asyncio.sleep(0)
        steps.append(await gate)
        return "done"

    pending = start_eagerly(waits())
    assert steps == ["started"]  # the first step ran before start_eagerly returned
    assert not pending.done()
    gate.set_result("woken")
    assert await pending == "done"
    assert steps == ["started", "woken"]


async def test_a_failure_after_a_wait_and_a_cancellation_reach_the_coroutine() -> None:
    gate: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    seen: list[str] = []

    async def fails_later() -> None:
        await asyncio.sleep(0)
        raise ValueError("later")

    with pytest.raises(ValueError, match="later"):
        await start_eagerly(fails_later())

    async def cleans_up() -> None:
        try:
            await gate
        except asyncio.CancelledError:
            seen.append("cancelled inside")
            raise

    pending = start_eagerly(cleans_up())
    await asyncio.sleep(0)
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    assert seen == ["cancelled inside"]
