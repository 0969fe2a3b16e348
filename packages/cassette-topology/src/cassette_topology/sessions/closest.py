"""The recorded script a live session most likely was, for a first request that binds to none.

A changed prompt gives a live session a first request no unclaimed script begins with
(`SESSION_UNMATCHED`). The report then names the script the session was meant to bind to, by
its recorded session name, so the user reads a name that is in their session logs instead of
a live id (a fresh uuid, or a subagent call key whose digest changed with the prompt). Pure:
identities and names only, never a request body.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from cassette_topology.sessions.scripts import SessionScript

__all__ = ["closest_script", "tree_place"]

# TOPO-4: a call key segment is `<label>-<hex12>~<occurrence>`; the digest follows the prompt.
_DIGEST: Final = re.compile(r"-[0-9a-f]{12}(?=~)")


def tree_place(call_key: str | None) -> str | None:
    """A call key without its request digests: the labels and occurrences of its path."""
    return None if call_key is None else _DIGEST.sub("", call_key)


def closest_script(
    scripts: Sequence[SessionScript],
    unclaimed: Sequence[int],
    session: str | None,
    call_key: str | None,
) -> int | None:
    """The unclaimed script closest to a live session whose first request matched none.

    In order: the same subagent call key (the child's own model prompt changed); the same
    place in the call tree (the child's subagent prompt changed its key's digest); the same
    recorded session name; then the first script of the same kind (keyed by a subagent call
    or not). None when no unclaimed script is of the session's kind.
    """
    place = tree_place(call_key)
    tests: tuple[Callable[[SessionScript], bool], ...] = (
        lambda script: call_key is not None and script.call_key == call_key,
        lambda script: place is not None and tree_place(script.call_key) == place,
        lambda script: session is not None and script.recorded_session == session,
        lambda script: (script.call_key is None) == (call_key is None),
    )
    for test in tests:
        found = next((k for k in unclaimed if test(scripts[k])), None)
        if found is not None:
            return found
    return None
