"""The recorded call tree (by parentKey) and the subtrees beneath delivered calls (TOPO-5)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Set
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol


class RecordedCall(Protocol):
    """What the tree needs of a recorded interaction: its own key and its parent's key."""

    @property
    def call_key(self) -> str: ...
    @property
    def parent_key(self) -> str: ...


@dataclass(frozen=True, slots=True)
class CallTree:
    """Recorded call keys by the key of the call that made them (a nested child's parentKey)."""

    children: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, calls: Iterable[RecordedCall]) -> CallTree:
        """Index calls by parent key, each parent's children in the order given."""
        children: dict[str, list[str]] = {}
        for item in calls:
            children.setdefault(item.parent_key, []).append(item.call_key)
        return cls(MappingProxyType({key: tuple(keys) for key, keys in children.items()}))

    def beneath(self, call_key: str, known: Set[str] = frozenset()) -> tuple[str, ...]:
        """Every key recorded beneath `call_key`, leaving out `known` keys and their subtrees.

        Iterative with a visited set, so a hand-made file whose parent keys form a cycle ends.
        A key in `known` is neither returned nor walked: callers pass a set closed under
        descent, whose subtrees are already accounted for.
        """
        found: list[str] = []
        seen = {call_key}
        pending = [call_key]
        while pending:
            parent = pending.pop()
            for child in self.children.get(parent, ()):
                if child in seen or child in known:
                    continue
                seen.add(child)
                found.append(child)
                pending.append(child)
        return tuple(found)
