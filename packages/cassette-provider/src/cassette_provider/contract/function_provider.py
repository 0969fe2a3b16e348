"""FunctionProvider: an in-process provider whose children are plain async functions."""

from __future__ import annotations

import asyncio
import inspect
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import cast

from cassette_provider.contract.abort import AbortController
from cassette_provider.contract.agent import SUBAGENT_ORIGIN, SimpleAgent
from cassette_provider.contract.errors import RUN_RESULT_SHAPE, ProviderProblem, provider_error
from cassette_provider.contract.protocol import (
    ALL_CAPABILITIES,
    Capabilities,
    ProviderIdentity,
    StartRequest,
    SubagentResult,
)

__all__ = ["ABORTED_RESULT", "FunctionProvider", "FunctionRun", "aborted_result", "run_result"]

RunFunction = Callable[[StartRequest, SimpleAgent], "Awaitable[object] | object"]
StartFunction = Callable[[StartRequest], "Awaitable[object] | object"]

ABORTED_RESULT: SubagentResult = {"output": [], "stopReason": "aborted"}


def aborted_result() -> SubagentResult:
    """A fresh `{"output": [], "stopReason": "aborted"}` result."""
    return {"output": [], "stopReason": "aborted"}


def child_of(request: StartRequest) -> SimpleAgent:
    """A fresh child for the request's parent: origin subagent, parent session set, depth + 1."""
    parent = request.parent
    return SimpleAgent(
        options={},
        cwd=parent.cwd,
        origin=SUBAGENT_ORIGIN,
        delegation_depth=(parent.delegation_depth or 0) + 1,
        parent_session=parent.id,
    )


def run_result(provider_name: str, value: object) -> SubagentResult:
    """The run function's return value as a result, or a RunResultShapeError showing the shape.

    A run function must return `{"output": [content blocks], "stopReason": "..."}`; a plain
    string (which is plain JSON, so the recorder's snapshot would not say what is wrong) or an
    object without those keys is refused here with the shape to return (code RUN_RESULT_SHAPE).
    """
    if isinstance(value, Mapping) and "output" in value and "stopReason" in value:
        return cast(SubagentResult, value)
    what = (
        f"a {type(value).__name__} without output and stopReason"
        if isinstance(value, Mapping)
        else f"a {type(value).__name__}"
    )
    raise provider_error(
        ProviderProblem(
            f'FunctionProvider "{provider_name}": the run function returned {what}; return a '
            'result such as {"output": [{"type": "text", "text": "..."}], '
            '"stopReason": "completed"}',
            RUN_RESULT_SHAPE,
        )
    )


async def _settle(value: Awaitable[object] | object) -> object:
    """Await `value` when it is awaitable."""
    if inspect.isawaitable(value):
        return await value
    return value


async def _invoke(run: RunFunction, request: StartRequest, child: SimpleAgent) -> object:
    """Call the run function inside the task, so a run cancelled before it starts never runs."""
    return await _settle(run(request, child))


class FunctionRun:
    """A run of a FunctionProvider: a task that abort and dispose cancel into an aborted result."""

    def __init__(self, provider_name: str, request: StartRequest, run: RunFunction) -> None:
        self._provider_name = provider_name
        self._id = f"{provider_name}-{uuid.uuid4()}"
        self._child = child_of(request)
        self._abort = AbortController()
        self._work: asyncio.Task[object] = asyncio.ensure_future(_invoke(run, request, self._child))
        self._result: asyncio.Task[SubagentResult] = asyncio.ensure_future(self._drive())
        self._result.add_done_callback(_mark_retrieved)
        self._abort.signal.add_listener(self._cancel_work)
        if request.signal is not None:
            self._remove_listener = request.signal.add_listener(self._abort.abort)
        else:
            self._remove_listener = _noop

    def _cancel_work(self, _reason: object) -> None:
        self._work.cancel()

    @property
    def id(self) -> str:
        """The run id (`<provider>-<uuid4>`)."""
        return self._id

    @property
    def local_agent(self) -> SimpleAgent:
        """The child agent the run function received."""
        return self._child

    @property
    def result(self) -> asyncio.Task[SubagentResult]:
        """The terminal result (aborted when abort or dispose came first)."""
        return self._result

    async def _drive(self) -> SubagentResult:
        try:
            value = await self._work
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self._abort.signal.aborted and (current is None or current.cancelling() == 0):
                return aborted_result()
            raise
        finally:
            self._remove_listener()
        return run_result(self._provider_name, value)

    async def dispose(self) -> None:
        """Cancel the work if it is still running and wait for the result to settle."""
        self._abort.abort()
        if not self._result.done():  # issue 24: a settled result needs no wait
            await asyncio.wait([self._result])


def _noop() -> None:
    """Nothing to remove."""


def _mark_retrieved(task: asyncio.Task[SubagentResult]) -> None:
    """Retrieve the outcome so an unawaited failed result does not log a stray warning."""
    if not task.cancelled():
        task.exception()


class FunctionProvider(ProviderIdentity):
    """An in-process provider: `start(request)` (optional) then `run(request, child)`.

    `run(request, child)` receives the StartRequest and the child agent it runs as (a
    `SimpleAgent` whose parent session is the request's parent); it may be sync or async and
    returns a result `{"output": [content blocks], "stopReason": "completed"}`.
    """

    def __init__(
        self,
        name: str,
        run: RunFunction,
        *,
        start: StartFunction | None = None,
        capabilities: Capabilities = ALL_CAPABILITIES,
        inherits_parent_context: bool = False,
    ) -> None:
        self._name = name
        self._run = run
        self._start = start
        self._capabilities = capabilities
        self._inherits = inherits_parent_context

    async def start(self, request: StartRequest) -> FunctionRun:
        """Await the optional start hook (a raise fails the start), then publish the run."""
        if self._start is not None:
            await _settle(self._start(request))
        return FunctionRun(self._name, request, self._run)
