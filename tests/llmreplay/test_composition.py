"""Issue 13 acceptance: both layers at once, the subagent cassette and per-session model replay.

A parent makes model calls through the openai SDK and starts two children through the
cassette provider; each child makes its own model calls through the same client, and both
children open with the same question. Recorded once, the children's calls land in their own
session logs (keyed by their subagent call keys), never in the parent's script. Replayed
offline with the children flipped, either with the children answered by the subagent cassette
(their model scripts are covered) or with the children run again and their model calls
replayed by call key, without ordinals.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import openai
import pytest
from cassette_canonical import canonical_json
from cassette_format import load_cassette
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.models import (
    SessionRecorder,
    SessionReplayer,
    harvest_session_logs,
    session_scope,
)
from cassette_provider.models.transport import RecordingTransport, ReplayTransport
from llmreplay.openai_local import LocalOpenAI, ask, sdk_client

CHILDREN = ("alpha", "beta")
#: The children's model calls in the recording: both open with the same question.
RECORDED_CHILD_ORDER = (("alpha", 1), ("beta", 1), ("alpha", 2), ("beta", 2))
FLIPPED_CHILD_ORDER = (("beta", 1), ("alpha", 1), ("beta", 2), ("alpha", 2))


def _question(label: str, turn: int) -> str:
    return "research the bug" if turn == 1 else f"{label}: report"


@dataclass
class Harness:
    """A parent agent that delegates to two children; every model call goes through `client`."""

    client: openai.AsyncOpenAI
    child_order: Sequence[tuple[str, int]]
    gates: list[asyncio.Event] = field(default_factory=list)
    child_answers: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.gates = [asyncio.Event() for _ in range(len(self.child_order) + 1)]
        self.child_answers = {label: [] for label in CHILDREN}

    def provider(self) -> FunctionProvider:
        """The upstream: each child asks the model twice, in the turns `child_order` gives."""

        async def run(request: StartRequest, _child: SimpleAgent) -> object:
            label = request.label or ""
            for position, (who, turn) in enumerate(self.child_order):
                if who != label:
                    continue
                await self.gates[position].wait()
                answer = await ask(self.client, _question(label, turn), stream=turn == 1)
                self.child_answers[label].append(answer)
                self.gates[position + 1].set()
            text = " / ".join(self.child_answers[label])
            return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}

        return FunctionProvider("spawn", run)

    async def parent(
        self, registry: ProviderRegistry, start_order: Sequence[str], scope: str | None
    ) -> dict[str, object]:
        """Plan, start both children at once (in `start_order`), then summarize."""
        context: AbstractContextManager[None] = (
            nullcontext() if scope is None else session_scope(scope)
        )
        root = SimpleAgent(session_id="root")
        with context:
            plan = await ask(self.client, "parent: plan the work", stream=False)
            self.gates[0].set()
            runs = [
                await registry.start(
                    "cassette",
                    StartRequest(
                        prompt=[{"type": "text", "text": f"take part {label}"}],
                        parent=root,
                        label=label,
                    ),
                )
                for label in start_order
            ]
            try:
                results = [await run.result for run in runs]
            finally:
                for run in runs:
                    await run.dispose()
            summary = await ask(self.client, "parent: summarize", stream=True)
        by_label = dict(zip(start_order, results, strict=True))
        return {"plan": plan, "summary": summary, **{k: by_label[k] for k in CHILDREN}}


async def _record(tmp_path: Path, scope: str | None) -> tuple[dict[str, object], LocalOpenAI]:
    server = LocalOpenAI()
    recorder = SessionRecorder()
    registry = ProviderRegistry()
    async with sdk_client(RecordingTransport(server.transport, recorder)) as client:
        harness = Harness(client, RECORDED_CHILD_ORDER)
        registry.register(harness.provider())
        config = RecordConfig(file=str(tmp_path / "subagents.cassette.jsonl"))
        async with install_cassette(registry, config):
            outcome = await harness.parent(registry, CHILDREN, scope)
    await recorder.write(tmp_path / "models")
    return outcome, server


@pytest.mark.parametrize("scope", ["rec-parent", None], ids=["scoped-parent", "anonymous-parent"])
async def test_children_model_calls_get_their_own_sessions(
    tmp_path: Path, scope: str | None
) -> None:
    outcome, server = await _record(tmp_path, scope)
    assert outcome["alpha"] == {
        "output": [{"type": "text", "text": "echo research the bug / echo alpha: report"}],
        "stopReason": "completed",
    }
    assert len(server.exchanges) == 6
    logs = await harvest_session_logs(tmp_path / "models")
    parent, *children = logs
    assert parent.header.call_key is None
    asked = [json.loads(canonical_json(c.request).unwrap())["body"] for c in parent.calls]
    assert [body["messages"][-1]["content"] for body in asked] == [
        "parent: plan the work",
        "parent: summarize",
    ]  # the children's calls never landed in the parent's script
    cassette = load_cassette(tmp_path / "subagents.cassette.jsonl")
    keys = {i.call_key for i in cassette.interactions}
    assert {child.header.call_key for child in children} == keys
    assert all(child.header.parent_session == parent.header.id for child in children)
    assert all(len(child.calls) == 2 for child in children)


@pytest.mark.parametrize("scope", ["rec-parent", None], ids=["scoped-parent", "anonymous-parent"])
async def test_both_layers_replay_offline_with_the_children_flipped(
    tmp_path: Path, scope: str | None
) -> None:
    recorded, server = await _record(tmp_path, scope)
    replayer = await SessionReplayer.from_directory(tmp_path / "models")
    registry = ProviderRegistry()  # no upstream: the children are answered by the cassette
    handle = install_cassette(
        registry, ReplayConfig(file=str(tmp_path / "subagents.cassette.jsonl"))
    )
    async with sdk_client(ReplayTransport(replayer)) as client:
        harness = Harness(client, FLIPPED_CHILD_ORDER)
        with replayer.covering_subagents():
            replayed = await harness.parent(registry, ("beta", "alpha"), "live-parent")
    assert replayed == recorded
    assert harness.child_answers == {"alpha": [], "beta": []}  # the children never ran
    replayer.assert_consumed()  # the parent's script is consumed, the children's are covered
    await handle.dispose()
    assert len(server.exchanges) == 6


async def test_without_coverage_the_childrens_scripts_are_reported_unconsumed(
    tmp_path: Path,
) -> None:
    await _record(tmp_path, "rec-parent")
    replayer = await SessionReplayer.from_directory(tmp_path / "models")
    registry = ProviderRegistry()
    handle = install_cassette(
        registry, ReplayConfig(file=str(tmp_path / "subagents.cassette.jsonl"))
    )
    async with sdk_client(ReplayTransport(replayer)) as client:
        await Harness(client, FLIPPED_CHILD_ORDER).parent(registry, CHILDREN, "live")
    with pytest.raises(Exception, match="2 recorded session script"):
        replayer.assert_consumed()
    await handle.dispose()


@pytest.mark.parametrize("scope", ["rec-parent", None], ids=["scoped-parent", "anonymous-parent"])
async def test_children_run_again_replay_their_own_model_calls_by_call_key(
    tmp_path: Path, scope: str | None
) -> None:
    recorded, server = await _record(tmp_path, scope)
    replayer = await SessionReplayer.from_directory(tmp_path / "models")
    registry = ProviderRegistry()
    async with sdk_client(ReplayTransport(replayer)) as client:
        harness = Harness(client, FLIPPED_CHILD_ORDER)  # beta asks first now
        registry.register(harness.provider())
        config = RecordConfig(file=str(tmp_path / "again.cassette.jsonl"))
        async with install_cassette(registry, config):
            replayed = await harness.parent(registry, ("beta", "alpha"), "live-parent")
    assert replayed == recorded
    assert harness.child_answers["beta"] == ["echo research the bug", "echo beta: report"]
    replayer.assert_consumed()
    assert len(server.exchanges) == 6  # every model call was answered offline
