"""A scripted multi-session model scenario: who calls, what they ask, in which order."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

from cassette_canonical import JsonValue

#: One model call of a scenario: the role making it and its 1-based call number.
Step = tuple[str, int]
#: Something with the model seam's shape: `stream(request, session_id)` yielding chunks.
StreamSeam = Callable[[JsonValue, str | None], AsyncIterator[JsonValue]]

CANARY_PROMPT = "CANARY-PROMPT-5e2a"
CANARY_RESULT = "CANARY-RESULT-93bd"


def model_request(role: str, task: str) -> JsonValue:
    """The chat request a role sends; it never contains the (volatile) live session id."""
    return {
        "model": "fake-model",
        "messages": [{"role": "user", "content": f"{CANARY_PROMPT} {role}: {task}"}],
    }


@dataclass
class LiveModel:
    """A deterministic fake model: answers name the request; it logs every call globally."""

    calls: list[tuple[JsonValue, tuple[JsonValue, ...]]] = field(default_factory=list)

    async def stream(self, request: JsonValue) -> AsyncIterator[JsonValue]:
        assert isinstance(request, dict)
        messages = request["messages"]
        assert isinstance(messages, list)
        last = messages[-1]
        assert isinstance(last, dict)
        content = str(last["content"]).removeprefix(f"{CANARY_PROMPT} ")
        chunks: tuple[JsonValue, ...] = tuple(
            {"delta": part} for part in (CANARY_RESULT, "answer", "to", content)
        )
        self.calls.append((request, chunks))
        for chunk in chunks:
            yield chunk


@dataclass(frozen=True)
class Scenario:
    """Roles with their tasks (role order = creation order) and a recorded call order."""

    tasks: dict[str, tuple[str, ...]]
    recorded_order: tuple[Step, ...]

    def request(self, step: Step) -> JsonValue:
        role, number = step
        return model_request(role, self.tasks[role][number - 1])


def answer_text(chunks: Sequence[JsonValue]) -> str:
    """Join streamed deltas into the answer text a role saw."""
    return " ".join(str(c["delta"]) for c in chunks if isinstance(c, dict))


async def drive_sequentially(
    scenario: Scenario, seam: StreamSeam, order: Sequence[Step], ids: dict[str, str]
) -> dict[str, list[str]]:
    """Make the scenario's calls one after another in `order`; answers per role."""
    answers: dict[str, list[str]] = {role: [] for role in scenario.tasks}
    for step in order:
        chunks = [chunk async for chunk in seam(scenario.request(step), ids[step[0]])]
        answers[step[0]].append(answer_text(chunks))
    return answers


async def drive_concurrently(
    scenario: Scenario, seam: StreamSeam, order: Sequence[Step], ids: dict[str, str]
) -> dict[str, list[str]]:
    """Run each role as its own task; events (not sleeps) force the global call order."""
    turns = [asyncio.Event() for _ in range(len(order) + 1)]
    answers: dict[str, list[str]] = {role: [] for role in scenario.tasks}

    async def role_task(role: str) -> None:
        for position, step in enumerate(order):
            if step[0] != role:
                continue
            await turns[position].wait()
            chunks = [chunk async for chunk in seam(scenario.request(step), ids[role])]
            answers[role].append(answer_text(chunks))
            turns[position + 1].set()

    turns[0].set()
    async with asyncio.TaskGroup() as group:
        for role in scenario.tasks:
            group.create_task(role_task(role))
    return answers


def fresh_ids(scenario: Scenario) -> dict[str, str]:
    """Live session ids are freshly random on every run (never the recorded ones)."""
    return {role: f"live-{uuid.uuid4()}" for role in scenario.tasks}


class GlobalCursorReplayer:
    """The contrast: the Nth call of any session gets the Nth recorded response."""

    def __init__(self, calls: Sequence[tuple[JsonValue, tuple[JsonValue, ...]]]) -> None:
        self._calls = list(calls)
        self._cursor = 0

    async def stream(self, request: JsonValue, session_id: str | None) -> AsyncIterator[JsonValue]:
        _request, chunks = self._calls[self._cursor]
        self._cursor += 1
        for chunk in chunks:
            yield chunk
