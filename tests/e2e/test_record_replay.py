"""Acceptance: record a concurrent tree with failures, replay it offline in another order."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cassette_format import load_cassette, summarize
from cassette_provider import (
    CassetteMismatchError,
    CassetteRecordedError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)

CHILDREN = ("alpha", "beta", "gamma")


def _prompt(text: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": text}]


def _answer(text: str) -> dict[str, object]:
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


class DeployError(RuntimeError):
    """Raised after publication by the failing child."""


def _upstream(registry: ProviderRegistry, finished: list[str]) -> FunctionProvider:
    gates = {label: asyncio.Event() for label in CHILDREN}

    async def run(request: StartRequest, child: SimpleAgent) -> object:
        label = request.label or ""
        if label == "grandchild":
            return _answer("nested answer")
        if label == "deploy":
            raise DeployError("deploy target unreachable")
        # Reverse start order: gamma finishes first, then releases beta, then alpha.
        index = CHILDREN.index(label)
        if index < len(CHILDREN) - 1:
            await gates[label].wait()
        if label == "beta":
            nested = await registry.start(
                "cassette",
                StartRequest(prompt=_prompt("nested"), parent=child, label="grandchild"),
            )
            try:
                await nested.result
            finally:
                await nested.dispose()
        finished.append(label)
        if index > 0:
            gates[CHILDREN[index - 1]].set()
        return _answer(f"answer {label}")

    def start(request: StartRequest) -> None:
        if request.label == "broken":
            raise ValueError("no capacity")

    return FunctionProvider("spawn", run, start=start)


async def _outcome(registry: ProviderRegistry, root: SimpleAgent, label: str) -> object:
    try:
        run = await registry.start(
            "cassette", StartRequest(prompt=_prompt(f"task {label}"), parent=root, label=label)
        )
    except Exception as error:  # the start failure
        return ("start-error", getattr(error, "recorded_name", type(error).__name__))
    try:
        return await run.result
    except Exception as error:
        return ("result-error", getattr(error, "recorded_name", type(error).__name__))
    finally:
        await run.dispose()


async def _record(path: Path) -> dict[str, object]:
    registry = ProviderRegistry()
    finished: list[str] = []
    registry.register(_upstream(registry, finished))
    root = SimpleAgent(session_id="root-recorded")
    labels = (*CHILDREN, "broken", "deploy")
    async with install_cassette(registry, RecordConfig(file=str(path))):
        outcomes = await asyncio.gather(*(_outcome(registry, root, label) for label in labels))
    assert finished == ["gamma", "beta", "alpha"]
    return dict(zip(labels, outcomes, strict=True))


async def test_record_then_replay_offline_in_another_order(tmp_path: Path) -> None:
    path = tmp_path / "tree.cassette.jsonl"
    recorded = await _record(path)
    assert recorded["broken"] == ("start-error", "ValueError")
    assert recorded["deploy"] == ("result-error", "DeployError")
    cassette = load_cassette(path)
    assert len(cassette.interactions) == 6
    assert summarize(cassette)["interactions"] == 6
    nested = [i for i in cassette.interactions if i.parent_key != "root"]
    assert len(nested) == 1
    assert nested[0].call_key.startswith(nested[0].parent_key + "/grandchild-")

    order = ("deploy", "gamma", "broken", "alpha", "beta")
    for strict in (False, True):
        registry = ProviderRegistry()  # no upstream at all
        handle = install_cassette(registry, ReplayConfig(file=str(path), strict_subtrees=strict))
        root = SimpleAgent(session_id="another-root")
        replayed = await asyncio.gather(*(_outcome(registry, root, label) for label in order))
        assert dict(zip(order, replayed, strict=True)) == recorded
        if not strict:  # beta's result was delivered, so its grandchild is covered (issue 12)
            await handle.dispose()
            continue
        with pytest.raises(CassetteMismatchError) as unconsumed:  # MATCH-4 as the reference
            await handle.dispose()
        assert "1 cassette interaction(s) were not consumed" in str(unconsumed.value)
        assert nested[0].call_key in str(unconsumed.value)


async def test_changed_prompt_is_a_metadata_only_mismatch(tmp_path: Path) -> None:
    path = tmp_path / "tree.cassette.jsonl"
    await _record(path)
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path), assert_consumed=False))
    secret_prompt = "a completely different prompt body"
    with pytest.raises(CassetteMismatchError) as mismatch:
        await registry.start(
            "cassette",
            StartRequest(prompt=_prompt(secret_prompt), parent=SimpleAgent(), label="alpha"),
        )
    diagnostic = mismatch.value.diagnostic
    assert diagnostic is not None
    assert diagnostic.reason == "request-changed"
    assert secret_prompt not in str(mismatch.value)
    assert secret_prompt not in repr(diagnostic)


async def test_recorded_failures_replay_as_recorded_errors(tmp_path: Path) -> None:
    path = tmp_path / "tree.cassette.jsonl"
    await _record(path)
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path), assert_consumed=False))
    root = SimpleAgent()
    with pytest.raises(CassetteRecordedError) as start_error:
        await registry.start(
            "cassette", StartRequest(prompt=_prompt("task broken"), parent=root, label="broken")
        )
    assert start_error.value.recorded_name == "ValueError"
    assert start_error.value.code == "CASSETTE_RECORDED_ERROR"
    run = await registry.start(
        "cassette", StartRequest(prompt=_prompt("task deploy"), parent=root, label="deploy")
    )
    with pytest.raises(CassetteRecordedError) as result_error:
        await run.result
    assert result_error.value.recorded_name == "DeployError"
    assert str(result_error.value) == "deploy target unreachable"
    await run.dispose()
