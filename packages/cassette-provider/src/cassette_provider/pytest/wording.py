"""Failure texts in the words a pytest user types, and the next step for the common traps.

The provider's messages keep the reference's templates (ERR-3), which name options as the
reference spells them (`allowRedactedReplay`, `duplicatePolicy`, `upstreamProvider`). A pytest
user writes `allow_redacted_replay=True` in a marker, so the plugin's reports translate each
option of RecordConfig and ReplayConfig to its Python name, and add one hint line for a
trap whose message does not say what to do (a missing upstream, a second top-level parent,
the older marker). Hints name options and commands only, never recorded or live content.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import fields
from functools import cache

from cassette_canonical.display_text import display
from cassette_topology.errors import CASSETTE_AMBIGUOUS

from cassette_provider.contract.errors import NO_UPSTREAM
from cassette_provider.install import RecordConfig, ReplayConfig

__all__ = ["hints_for", "python_words"]

_SECOND_ROOT: str = "cassette observed more than one top-level parent"
_CAMEL: re.Pattern[str] = re.compile(r"\b[a-z]+(?:[A-Z][a-z]+)+\b")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


@cache
def _python_names() -> dict[str, str]:
    """camelCase -> snake_case for every field of RecordConfig and ReplayConfig."""
    names = {field.name for config in (RecordConfig, ReplayConfig) for field in fields(config)}
    return {_camel(name): name for name in names if "_" in name}


def python_words(text: str) -> str:
    """`text` with each config option named as Python spells it (`allow_redacted_replay`)."""
    names = _python_names()
    return _CAMEL.sub(lambda found: names.get(found.group(0), found.group(0)), text)


def _chain(error: BaseException) -> Iterator[BaseException]:
    """The error, its causes and contexts, each once (walked iteratively)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _no_upstream_hint(registered: Sequence[str], upstream: str) -> str:
    others = [name for name in registered if name != "cassette"]
    listed = ", ".join(f'"{name}"' for name in others) if others else "none"
    suggestion = others[0] if others else "<your provider's name>"
    return (
        f'"{upstream}" is the upstream_provider this test records through (the default is '
        f'"spawn"). Register your real provider under that name in cassette_registry, e.g. '
        f'FunctionProvider("{upstream}", run_child), or name yours: '
        f'@pytest.mark.subagent_cassette(upstream_provider="{suggestion}") (or the same key in '
        f"subagent_cassette_config). Registered in cassette_registry: {listed}."
    )


# One cassette covers one logical root (TOPO-6) and a second top-level parent is refused
# (TOPO-2), so the plugin does not merge them: it says how to pass one root.
_SECOND_ROOT_HINT = (
    "each top-level start of this test came from a different parent object, and one "
    "cassette records one scenario under one root. Create the parent once in the test "
    "(parent = SimpleAgent(...)) and pass that same object to every top-level start: "
    "StartRequest(..., parent=parent), or build one SubagentDelegate(cassette_registry, "
    "parent) or GraphDelegate(cassette_registry, parent) and reuse it. Or give each "
    "top-level flow its own test."
)


def hints_for(
    error: BaseException, *, registered: Sequence[str] = (), upstream: str = "spawn"
) -> list[str]:
    """The next step for a known trap in the error's chain (escaped), or nothing."""
    hints: list[str] = []
    for current in _chain(error):
        code = getattr(current, "code", None)
        if code == NO_UPSTREAM and "no upstream subagent provider registered" in str(current):
            hints.append(_no_upstream_hint(registered, upstream))
        elif code == CASSETTE_AMBIGUOUS and str(current).startswith(_SECOND_ROOT):
            hints.append(_SECOND_ROOT_HINT)
        if hints:
            break
    return [display(hint) for hint in hints]
