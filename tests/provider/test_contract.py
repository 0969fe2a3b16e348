"""The subagent contract: abort signals, SimpleAgent, registry and FunctionProvider."""

from __future__ import annotations

import asyncio

import pytest
from cassette_provider import (
    AbortController,
    AbortError,
    Capabilities,
    FunctionProvider,
    ProviderRegistry,
    ProviderRegistryError,
    SimpleAgent,
    StartRequest,
    aborted_result,
)


def _text(text: str) -> dict[str, object]:
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


async def test_abort_signal_notifies_listeners_once_and_wakes_waiters() -> None:
    controller = AbortController()
    seen: list[object] = []
    controller.signal.add_listener(seen.append)
    waiter = asyncio.ensure_future(controller.signal.wait())
    await asyncio.sleep(0)
    controller.abort("why")
    controller.abort("again")
    assert await waiter == "why"
    assert seen == ["why"]
    assert controller.signal.aborted
    assert await controller.signal == "why"


def test_abort_default_reason_is_abort_error() -> None:
    controller = AbortController()
    controller.abort()
    assert isinstance(controller.signal.reason, AbortError)


async def test_function_provider_child_is_a_subagent_of_the_parent() -> None:
    seen: list[SimpleAgent] = []

    async def run(request: StartRequest, child: SimpleAgent) -> object:
        seen.append(child)
        return _text(str(request.label))

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    root = SimpleAgent(session_id="root", delegation_depth=0)
    run_ = await registry.start("spawn", StartRequest(prompt=[], parent=root, label="a"))
    assert await run_.result == _text("a")
    assert run_.local_agent is seen[0]
    assert seen[0].origin == "subagent"
    assert seen[0].parent_session == "root"
    assert seen[0].delegation_depth == 1
    await run_.dispose()
    await run_.dispose()


async def test_start_hook_failure_fails_the_start() -> None:
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return _text("never")

    def start(_request: StartRequest) -> None:
        raise RuntimeError("no capacity")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, start=start))
    with pytest.raises(RuntimeError, match="no capacity"):
        await registry.start("spawn", StartRequest(prompt=[], parent=SimpleAgent()))


async def test_run_raise_rejects_the_result() -> None:
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        raise ValueError("boom")

    provider = FunctionProvider("spawn", run)
    run_ = await provider.start(StartRequest(prompt=[], parent=SimpleAgent()))
    with pytest.raises(ValueError, match="boom"):
        await run_.result


async def test_abort_and_dispose_resolve_an_aborted_result() -> None:
    gate = asyncio.Event()

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        await gate.wait()
        return _text("late")

    provider = FunctionProvider("spawn", run)
    controller = AbortController()
    aborted = await provider.start(
        StartRequest(prompt=[], parent=SimpleAgent(), signal=controller.signal)
    )
    await asyncio.sleep(0)
    controller.abort()
    assert await aborted.result == aborted_result()

    disposed = await provider.start(StartRequest(prompt=[], parent=SimpleAgent()))
    await asyncio.sleep(0)
    await disposed.dispose()
    assert await disposed.result == aborted_result()


async def test_registry_unregister_and_capability_checks() -> None:
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return _text("x")

    registry = ProviderRegistry()
    caps = Capabilities(output_schema=False, depth_limit=True, tool_filter=True, persona=True)
    unregister = registry.register(FunctionProvider("spawn", run, capabilities=caps))
    with pytest.raises(ProviderRegistryError) as duplicate:
        registry.register(FunctionProvider("spawn", run))
    assert duplicate.value.code == "DUPLICATE_PROVIDER"
    with pytest.raises(ProviderRegistryError) as refused:
        await registry.start(
            "spawn", StartRequest(prompt=[], parent=SimpleAgent(), output_schema={})
        )
    assert refused.value.code == "UNSUPPORTED_CAPABILITY"
    unregister()
    assert registry.get("spawn") is None
    with pytest.raises(ProviderRegistryError) as missing:
        await registry.start("spawn", StartRequest(prompt=[], parent=SimpleAgent()))
    assert missing.value.code == "NO_PROVIDER"
