"""LangGraph: a parent fanning out to three child graphs (one nested) records once, replays offline.

The parent graph `Send`s one `research` task per topic; each task runs the `researcher` child
graph through the cassette (`GraphDelegate`), and the `deep` researcher runs the `fact_checker`
child graph itself through a `delegate.node(...)` (a nested child). A thread-safe `Turnstile`
fixes the order children finish in: while recording `deep` finishes first and `alpha` last; on
replay the same latencies are reversed (`alpha` first). Sync `invoke` (each `Send` task on a
LangGraph worker thread, each child call on its own event loop) and async `ainvoke` both record
and replay with default configs; replay registers no upstream at all, so nothing can run live.
"""

from __future__ import annotations

import asyncio
import operator
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest
from adapters.nested import label_chains, label_of

pytest.importorskip("langgraph")

from cassette_format import load_cassette, verify_file
from cassette_provider import (
    CassetteMismatchError,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    install_cassette,
)
from cassette_provider.adapters.langgraph import (
    GraphDelegate,
    GraphStateError,
    langgraph_provider,
)
from cassette_provider.contract.agent import SimpleAgent
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

#: A deadlock ends the process with every thread's stack instead of hanging the run.
pytestmark = pytest.mark.timeout(120, method="thread")

TOPICS = ("alpha", "beta", "deep")
"""The parent's `Send` targets, in the order it sends them; `deep` asks the fact checker."""

DEEP_FIRST = ("deep", "beta", "alpha")
"""Recording: the order children finish (alpha is the slowest sibling)."""

ALPHA_FIRST = ("alpha", "beta", "deep")
"""Replay: the same latencies reversed (alpha is now the fastest)."""

Flavor = Literal["sync", "async"]


class Turnstile:
    """Lets concurrent children finish one at a time in a fixed order, from any thread or loop.

    Sync nodes wait on a condition; async nodes wait for it on a worker thread, so the graph's
    loop keeps running. Latencies without sleeping: the order is the same on every run.
    """

    def __init__(self, order: Sequence[str]) -> None:
        self._order = tuple(order)
        self._next = 0
        self._changed = threading.Condition()
        self.passed: list[str] = []

    def _wait(self, name: str) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: self._order[self._next] == name, timeout=100):
                raise TimeoutError(f"{name!r} never got its turn")  # a deadlock, not a timing

    def _done(self, name: str) -> None:
        with self._changed:
            self.passed.append(name)
            self._next += 1
            self._changed.notify_all()

    @contextmanager
    def turn(self, name: str) -> Iterator[None]:
        """Wait for this child's turn (blocking), run the body, let the next one through."""
        self._wait(name)
        try:
            yield
        finally:
            self._done(name)

    async def aturn_wait(self, name: str) -> None:
        """Wait for this child's turn without blocking the event loop."""
        await asyncio.to_thread(self._wait, name)

    def release(self, name: str) -> None:
        """This child is finished: let the next one through."""
        self._done(name)


class ParentState(TypedDict):
    topics: list[str]
    findings: Annotated[list[str], operator.add]


class ResearchState(TypedDict, total=False):
    topic: str
    finding: str
    verdict: str


def finding_for(topic: str) -> str:
    """What the researcher child graph concludes about a topic."""
    return f"{topic}: studied"


def verdict_for(finding: str) -> str:
    """What the fact checker child graph says about a finding."""
    return f"confirmed ({finding})"


def expected_finding(topic: str) -> str:
    """The finding the parent collects for one topic (the deep one carries its verdict)."""
    finding = finding_for(topic)
    return f"{finding} / {verdict_for(finding)}" if topic == "deep" else finding


def fact_checker() -> Any:
    """The nested child graph: one node judging the researcher's finding."""
    builder = StateGraph(ResearchState)
    builder.add_node("judge", lambda state: {"verdict": verdict_for(state["finding"])})
    builder.add_edge(START, "judge")
    builder.add_edge("judge", END)
    return builder.compile()


def researcher(delegate: GraphDelegate) -> Any:
    """A child graph: study the topic; a `deep` topic also asks the fact checker (nested)."""
    builder = StateGraph(ResearchState)
    builder.add_node("study", lambda state: {"finding": finding_for(state["topic"])})
    builder.add_node(
        "check",
        delegate.node(
            "fact_checker",
            to_child=lambda state: {"finding": state["finding"]},
            from_child=lambda final: {"verdict": final["verdict"]},
        ),
    )
    builder.add_edge(START, "study")
    builder.add_conditional_edges(
        "study", lambda state: "check" if state["topic"] == "deep" else END, ["check", END]
    )
    builder.add_edge("check", END)
    return builder.compile()


def parent_graph(delegate: GraphDelegate, turnstile: Turnstile, flavor: Flavor) -> Any:
    """The parent: `Send` one research task per topic; each runs the researcher child graph."""

    def collected(topic: str, final: Any) -> dict[str, list[str]]:
        verdict = final.get("verdict")
        finding = str(final["finding"])
        return {"findings": [finding if verdict is None else f"{finding} / {verdict}"]}

    def research_sync(state: ResearchState) -> dict[str, list[str]]:
        topic = state["topic"]
        with turnstile.turn(topic):
            final = delegate.invoke("researcher", {"topic": topic}, label=f"research {topic}")
        return collected(topic, final)

    async def research_async(state: ResearchState) -> dict[str, list[str]]:
        topic = state["topic"]
        await turnstile.aturn_wait(topic)
        try:
            final = await delegate.ainvoke(
                "researcher", {"topic": topic}, label=f"research {topic}"
            )
        finally:
            turnstile.release(topic)
        return collected(topic, final)

    builder = StateGraph(ParentState)
    builder.add_node("research", research_sync if flavor == "sync" else research_async)
    builder.add_conditional_edges(
        START, lambda state: [Send("research", {"topic": t}) for t in state["topics"]], ["research"]
    )
    builder.add_edge("research", END)
    return builder.compile()


def run_parent(graph: Any, flavor: Flavor) -> dict[str, Any]:
    """One parent run, with `invoke` or with `ainvoke` on a fresh loop."""
    start = {"topics": list(TOPICS), "findings": []}
    if flavor == "sync":
        return dict(graph.invoke(start))
    return dict(asyncio.run(graph.ainvoke(start)))


def record(path: Path, flavor: Flavor, order: Sequence[str]) -> tuple[dict[str, Any], Turnstile]:
    """Record one parent run with default configs: the child graphs are the upstream."""
    registry = ProviderRegistry()
    delegate = GraphDelegate(registry)
    graphs = {"researcher": researcher(delegate), "fact_checker": fact_checker()}
    registry.register(langgraph_provider(graphs))
    turnstile = Turnstile(order)
    with install_cassette(registry, RecordConfig(file=str(path))):
        final = run_parent(parent_graph(delegate, turnstile, flavor), flavor)
    return final, turnstile


def replay(path: Path, flavor: Flavor, order: Sequence[str]) -> tuple[dict[str, Any], Turnstile]:
    """Replay one parent run with default configs and no upstream registered at all."""
    registry = ProviderRegistry()
    delegate = GraphDelegate(registry)
    turnstile = Turnstile(order)
    with install_cassette(registry, ReplayConfig(file=str(path))):
        final = run_parent(parent_graph(delegate, turnstile, flavor), flavor)
    return final, turnstile


def assert_real_graph(path: Path) -> None:
    """The cassette verifies and its tree is the graph: three research calls, one nested check."""
    assert verify_file(path)["interactions"] == 4
    interactions = list(load_cassette(path).interactions)
    assert sorted(label_chains(interactions).values()) == [
        ("research alpha",),
        ("research beta",),
        ("research deep",),
        ("research deep", "fact_checker"),
    ]
    by_sequence = [label_of(i) for i in sorted(interactions, key=lambda i: i.sequence)]
    # Lines land as calls end: the nested check, then the siblings slowest last.
    assert by_sequence == ["fact_checker", "research deep", "research beta", "research alpha"]


@pytest.mark.parametrize(
    ("recorded_with", "replayed_with"),
    [("sync", "sync"), ("async", "async"), ("sync", "async"), ("async", "sync")],
)
def test_send_fan_out_records_once_and_replays_reversed_offline(
    tmp_path: Path, recorded_with: Flavor, replayed_with: Flavor
) -> None:
    path = tmp_path / "graph.cassette.jsonl"
    recorded, record_order = record(path, recorded_with, DEEP_FIRST)
    assert record_order.passed == list(DEEP_FIRST)
    assert sorted(recorded["findings"]) == sorted(expected_finding(t) for t in TOPICS)
    assert_real_graph(path)

    replayed, replay_order = replay(path, replayed_with, ALPHA_FIRST)
    assert replay_order.passed == list(ALPHA_FIRST)
    # Each child gets its own outcome; the parent's reducer saw them in the new order.
    assert replayed["findings"] == [expected_finding(t) for t in ALPHA_FIRST]
    assert sorted(replayed["findings"]) == sorted(recorded["findings"])


def test_a_changed_child_input_is_a_mismatch_not_another_childs_outcome(tmp_path: Path) -> None:
    path = tmp_path / "graph.cassette.jsonl"
    record(path, "async", DEEP_FIRST)
    registry = ProviderRegistry()
    delegate = GraphDelegate(registry)
    with install_cassette(registry, ReplayConfig(file=str(path), assert_consumed=False)):
        assert delegate.invoke("researcher", {"topic": "alpha"}, label="research alpha") == {
            "topic": "alpha",
            "finding": finding_for("alpha"),
        }
        with pytest.raises(CassetteMismatchError, match="no cassette interaction matches"):
            delegate.invoke("researcher", {"topic": "gamma"}, label="research alpha")


def test_a_state_that_is_not_plain_json_names_the_mapper_that_fixes_it() -> None:
    delegate = GraphDelegate(ProviderRegistry(), SimpleAgent())
    with pytest.raises(GraphStateError, match=r"to_child="):
        delegate.request("researcher", {"when": object()})


def test_the_sync_call_refuses_a_running_loop_and_names_the_async_one() -> None:
    delegate = GraphDelegate(ProviderRegistry())

    async def inside_a_loop() -> None:
        delegate.invoke("researcher", {"topic": "alpha"})

    with pytest.raises(Exception, match=r"await registry\.run") as raised:
        asyncio.run(inside_a_loop())
    assert getattr(raised.value, "code", None) == "INVALID_CONFIG"
