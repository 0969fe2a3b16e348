"""The parent protocol a child can observe, and SimpleAgent, a ready-made parent."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Final, Protocol, runtime_checkable

__all__ = ["SUBAGENT_ORIGIN", "ParentAgent", "SimpleAgent"]

#: `origin` of an agent that was started as a subagent (TOPO-2 case 2).
SUBAGENT_ORIGIN: Final = "subagent"


@runtime_checkable
class ParentAgent(Protocol):
    """What a child can observe about its parent (NORM-6); harnesses adapt their agents to it."""

    @property
    def id(self) -> str:
        """The parent's session id."""
        ...

    @property
    def options(self) -> object:
        """The parent's agent options (must be lossless plain JSON)."""
        ...

    @property
    def cwd(self) -> str | None:
        """Session header `cwd`."""
        ...

    @property
    def origin(self) -> str | None:
        """Session header `origin`; `"subagent"` marks a child."""
        ...

    @property
    def delegation_depth(self) -> int | None:
        """Session header `delegationDepth`."""
        ...

    @property
    def agent_preset(self) -> str | None:
        """Session header `agentPreset`."""
        ...

    @property
    def composed_preset(self) -> object:
        """The composed preset (a string or None)."""
        ...

    @property
    def sandbox_mode(self) -> object:
        """The sandbox override for this session (None when there is none)."""
        ...

    @property
    def has_approval(self) -> bool:
        """Whether an approval service exists (maps to `approvalPolicy: "never"`)."""
        ...

    @property
    def events(self) -> Sequence[Mapping[str, object]]:
        """Session events in DSH shape, read for completed-turn messages when inheriting."""
        ...


class SimpleAgent:
    """A parent for harnesses with no agent object of their own; children get origin subagent."""

    def __init__(
        self,
        session_id: str | None = None,
        options: Mapping[str, object] | None = None,
        *,
        cwd: str | None = None,
        origin: str | None = None,
        delegation_depth: int | None = None,
        agent_preset: str | None = None,
        parent_session: str | None = None,
        composed_preset: str | None = None,
        sandbox_mode: object = None,
        has_approval: bool = False,
        events: Sequence[Mapping[str, object]] = (),
    ) -> None:
        self._id = session_id if session_id is not None else str(uuid.uuid4())
        self._options: Mapping[str, object] = dict(options) if options is not None else {}
        self._cwd = cwd
        self._origin = origin
        self._depth = delegation_depth
        self._preset = agent_preset
        self._parent_session = parent_session
        self._composed = composed_preset
        self._sandbox = sandbox_mode
        self._approval = has_approval
        self._events: list[Mapping[str, object]] = list(events)

    @property
    def id(self) -> str:
        """The session id."""
        return self._id

    @property
    def session_id(self) -> str:
        """The session id (same as `id`)."""
        return self._id

    @property
    def options(self) -> Mapping[str, object]:
        """Agent options."""
        return self._options

    @property
    def cwd(self) -> str | None:
        """Session header `cwd`."""
        return self._cwd

    @property
    def origin(self) -> str | None:
        """Session header `origin`."""
        return self._origin

    @property
    def delegation_depth(self) -> int | None:
        """Session header `delegationDepth`."""
        return self._depth

    @property
    def agent_preset(self) -> str | None:
        """Session header `agentPreset`."""
        return self._preset

    @property
    def parent_session(self) -> str | None:
        """The id of the session that started this one, if any."""
        return self._parent_session

    @property
    def composed_preset(self) -> str | None:
        """The composed preset."""
        return self._composed

    @property
    def sandbox_mode(self) -> object:
        """The sandbox override, None when there is none."""
        return self._sandbox

    @property
    def has_approval(self) -> bool:
        """Whether an approval service exists."""
        return self._approval

    @property
    def events(self) -> Sequence[Mapping[str, object]]:
        """Session events so far (a copy)."""
        return tuple(self._events)

    def add_event(self, event: Mapping[str, object]) -> None:
        """Append one DSH-shaped session event (`type`, `seq`, `data`, optional `surfaceOp`)."""
        self._events.append(event)

    def add_turn(self, messages: Sequence[Mapping[str, object]]) -> None:
        """Append one completed turn: each message as a surface event, then `turn/end`."""
        seq = len(self._events)
        self._events.append({"type": "turn/start", "seq": seq, "data": {}})
        for message in messages:
            seq += 1
            kind = _event_type(message)
            data: Mapping[str, object] = message if kind == "user/message" else {"message": message}
            self._events.append({"type": kind, "seq": seq, "surfaceOp": "append", "data": data})
        self._events.append({"type": "turn/end", "seq": seq + 1, "data": {}})

    def spawn_child(self, session_id: str | None = None) -> SimpleAgent:
        """A fresh child: origin subagent, parent session set, depth + 1, same cwd."""
        return SimpleAgent(
            session_id,
            options={},
            cwd=self._cwd,
            origin=SUBAGENT_ORIGIN,
            delegation_depth=(self._depth or 0) + 1,
            parent_session=self._id,
        )


def _event_type(message: Mapping[str, object]) -> str:
    """The DSH event type a completed-turn message is stored under."""
    if message.get("role") == "assistant":
        return "assistant/message"
    source = message.get("source")
    if isinstance(source, Mapping) and source.get("kind") == "tool":
        return "tool/result"
    return "user/message"
