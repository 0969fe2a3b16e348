"""The nested scenario of the adapter tests: two concurrent children, each asking one grandchild.

The orchestrator starts `alpha` and `beta` together; each child asks the fact checker about its
own claim and answers with the verdict. A `Rendezvous` holds every grandchild until all of them
are in flight, so the two children's nested calls really overlap while recording.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path

from cassette_format import load_cassette
from cassette_format.records import CassetteInteraction, ResultOutcome
from cassette_topology import stored_request_metadata

CHILDREN = ("alpha", "beta")
"""Child agent names, in the order the orchestrator starts them."""

SLOW_ALPHA = ("beta", "alpha")
"""Completion order when alpha is the slower child."""

SLOW_BETA = ("alpha", "beta")
"""The same latencies reversed: beta is now the slower child."""

GRANDCHILD = "fact_check"
"""The grandchild every child consults (its tool name and agent name)."""

HANG_GUARD_S = 60.0
"""Fails a rendezvous that can never complete instead of hanging the suite (not a timing)."""


def task_for(child: str) -> str:
    """The orchestrator's prompt to one child."""
    return f"Review the {child} draft."


def claim_for(child: str) -> str:
    """The child's prompt to the fact checker."""
    return f"Check the {child} claim."


def verdict_for(claim: str) -> str:
    """The fact checker's answer to a claim."""
    return f"confirmed: {claim}"


def answer_for(child: str) -> str:
    """The child's final answer: its name and its grandchild's verdict."""
    return f"{child}: {verdict_for(claim_for(child))}"


class Rendezvous:
    """Holds each arriving grandchild until `parties` of them have arrived, then lets all go."""

    def __init__(self, parties: int) -> None:
        self._barrier = asyncio.Barrier(parties)
        self.arrived: list[str] = []

    async def meet(self, claim: str) -> None:
        """Arrive with a claim and wait for the others (a guard turns a deadlock into a failure)."""
        self.arrived.append(claim)
        async with asyncio.timeout(HANG_GUARD_S):
            await self._barrier.wait()


def label_of(interaction: CassetteInteraction) -> str:
    """The recorded call's label."""
    label = stored_request_metadata(interaction.request).label
    assert label is not None
    return label


def result_text(interaction: CassetteInteraction) -> str:
    """The text of a recorded call's completed result."""
    outcome = interaction.outcome
    assert isinstance(outcome, ResultOutcome)
    return "".join(str(block["text"]) for block in outcome.output if isinstance(block, Mapping))


def label_chains(interactions: Sequence[CassetteInteraction]) -> dict[str, tuple[str, ...]]:
    """Each call's labels from its root child down to itself, by following `parentKey`."""
    by_key = {item.call_key: item for item in interactions}
    chains: dict[str, tuple[str, ...]] = {}
    for item in interactions:
        chain: list[str] = []
        current: CassetteInteraction | None = item
        while current is not None:
            chain.append(label_of(current))
            current = by_key.get(current.parent_key)
        chains[item.call_key] = tuple(reversed(chain))
    return chains


def assert_true_tree(file: Path) -> None:
    """The recording holds root -> child -> grandchild for both children, each on its own child.

    Every child hangs off `root`; each grandchild's `parentKey` is the call key of the child that
    asked it (its verdict names that child's claim), never `root` (TOPO-4, TOPO-5).
    """
    recorded = load_cassette(file)
    interactions = list(recorded.interactions)
    chains = label_chains(interactions)
    assert sorted(chains.values()) == [
        ("alpha",),
        ("alpha", GRANDCHILD),
        ("beta",),
        ("beta", GRANDCHILD),
    ]
    children = {label_of(i): i for i in interactions if i.parent_key == "root"}
    assert sorted(children) == list(CHILDREN)
    assert all(child.local for child in children.values())
    for name, child in children.items():
        assert result_text(child) == answer_for(name)
        below = [i for i in interactions if i.parent_key == child.call_key]
        assert [label_of(i) for i in below] == [GRANDCHILD]
        own_segment = below[0].call_key.removeprefix(f"{child.call_key}/")
        assert own_segment != below[0].call_key
        assert "/" not in own_segment
        assert result_text(below[0]) == verdict_for(claim_for(name))
