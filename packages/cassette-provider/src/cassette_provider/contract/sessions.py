"""The bridge from the subagent cassette to model sessions, passed in at install (LLMREPLAY-1).

Recording and replay sit beside `models/`, not above it: install hands them this bridge, so a
recorded child gets its own model session and a replayed child's model calls count as covered
without either room importing `models/`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

__all__ = ["NO_MODEL_SESSIONS", "SessionBridge"]


@dataclass(frozen=True, slots=True)
class SessionBridge:
    """How a subagent call reaches model sessions: the child's own session, a replayed child."""

    #: The context a recorded child is started in, given its subagent call key.
    child_session: Callable[[str], AbstractContextManager[object]]
    #: Told the subagent call key of every child answered from the recording.
    child_replayed: Callable[[str], None]


def _ignore(_call_key: str) -> None:
    """No model session observes the call."""


#: A bridge that reaches no model session (for providers built without model replay).
NO_MODEL_SESSIONS = SessionBridge(child_session=lambda _key: nullcontext(), child_replayed=_ignore)
