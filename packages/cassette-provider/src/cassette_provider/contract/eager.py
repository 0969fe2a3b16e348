"""A coroutine run at once up to its first wait, a task only for what is left (issue 24).

The recorder writes each call's line through `CassetteWriter.append`, a coroutine that
never waits (it writes a page-cache line in place). Wrapping it in a task costs a task
object, two loop turns and a done callback per call; stepping it here costs nothing more
than the call. A coroutine that does wait (a writer of another kind) goes on in a task from
the point where it waited, so it is still never cancelled with whoever awaits its result.
"""

from __future__ import annotations

import asyncio
import types
from collections.abc import Coroutine, Generator
from typing import Any, TypeVar

__all__ = ["start_eagerly"]

T = TypeVar("T")


def start_eagerly(coroutine: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
    """Step `coroutine` now: a settled future if it ended, else a task running the rest.

    It ends as a task would: its value or its exception (a cancellation cancels the
    future); `KeyboardInterrupt` and `SystemExit` propagate, as they do out of a task.
    """
    loop = asyncio.get_running_loop()
    try:
        blocked = coroutine.send(None)
    except StopIteration as done:
        settled: asyncio.Future[T] = loop.create_future()
        settled.set_result(done.value)
        return settled
    except asyncio.CancelledError:
        settled = loop.create_future()
        settled.cancel()
        return settled
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as error:
        settled = loop.create_future()
        settled.set_exception(error)
        return settled
    return asyncio.ensure_future(_resumed(coroutine, blocked))


@types.coroutine
def _resumed(coroutine: Coroutine[Any, Any, T], blocked: Any) -> Generator[Any, Any, T]:
    """The rest of a stepped coroutine, delegated as `yield from` would from where it waits:
    what the task sends or throws in goes on to the coroutine."""
    while True:
        try:
            sent = yield blocked
        except GeneratorExit:
            coroutine.close()
            raise
        except BaseException as error:
            try:
                blocked = coroutine.throw(error)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
        else:
            try:
                blocked = coroutine.send(sent)
            except StopIteration as done:
                return done.value  # type: ignore[no-any-return]
