"""`inspect --tree`: the call topology (root, children, grandchildren) drawn as a tree."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from cassette_cli.decimals import one_decimal
from cassette_cli.display import display
from cassette_cli.terminal import Palette

__all__ = ["TreeCall", "tree_lines"]

ROOT: Final = "root"
_TERM_STYLES: Final = {
    "completed": "good",
    "aborted": "warn",
    "max-tokens": "warn",
}


@dataclass(frozen=True, slots=True)
class TreeCall:
    """What the tree shows of one interaction: its place and how it ended."""

    sequence: int
    call_key: str
    parent_key: str
    term: str
    duration_ms: int | float


@dataclass(frozen=True, slots=True)
class _Node:
    """A node to draw: a recorded call, or a parent key no recorded call carries."""

    key: str
    call: TreeCall | None


def _segment(key: str, parent_key: str) -> str:
    """The part of a call key below its parent (`audit-…~1` of `root/audit-…~1`)."""
    prefix = parent_key + "/"
    return key[len(prefix) :] if key.startswith(prefix) and len(key) > len(prefix) else key


def _children(calls: Sequence[TreeCall]) -> dict[str, list[_Node]]:
    """Each parent key's children in sequence order; unrecorded parents hang under root."""
    recorded = {call.call_key for call in calls}
    children: dict[str, list[_Node]] = {}
    for call in sorted(calls, key=lambda item: item.sequence):
        children.setdefault(call.parent_key, []).append(_Node(call.call_key, call))
    missing = [key for key in children if key != ROOT and key not in recorded]
    for key in missing:
        children.setdefault(ROOT, []).append(_Node(key, None))
    _adopt_unreachable(calls, children)
    return children


def _reach(children: dict[str, list[_Node]], start: str, reachable: set[str]) -> None:
    """Add every key below `start` to `reachable` (iterative walk)."""
    pending = [start]
    while pending:
        key = pending.pop()
        for node in children.get(key, []):
            if node.key not in reachable:
                reachable.add(node.key)
                pending.append(node.key)


def _adopt_unreachable(calls: Sequence[TreeCall], children: dict[str, list[_Node]]) -> None:
    """Calls on a parent cycle (possible only in hand-made files) hang under root instead."""
    reachable: set[str] = set()
    _reach(children, ROOT, reachable)
    for call in sorted(calls, key=lambda item: item.sequence):
        if call.call_key in reachable:
            continue
        siblings = children.get(call.parent_key, [])
        children[call.parent_key] = [node for node in siblings if node.call is not call]
        children.setdefault(ROOT, []).append(_Node(call.call_key, call))
        reachable.add(call.call_key)
        _reach(children, call.call_key, reachable)


def _label(node: _Node, parent_key: str, palette: Palette) -> str:
    call = node.call
    if call is None:
        return f"{display(node.key)}  {palette.paint('(parent not recorded)', 'dim')}"
    term = palette.paint(call.term, _TERM_STYLES.get(call.term, "bad"))
    duration = palette.paint(f"{one_decimal(call.duration_ms)}ms", "dim")
    return f"{display(_segment(call.call_key, parent_key))}  {term}  {duration}"


def tree_lines(calls: Sequence[TreeCall], palette: Palette) -> list[str]:
    """The tree, one line per call, children in sequence order; iterative, any depth."""
    children = _children(calls)
    lines = [palette.paint(ROOT, "bold")]
    # Each entry: (node, its parent's key, the prefix drawn before it, is it the last child).
    stack: list[tuple[_Node, str, str, bool]] = []
    top = children.get(ROOT, [])
    stack.extend(
        (node, ROOT, "", index == len(top) - 1) for index, node in reversed(list(enumerate(top)))
    )
    seen: set[str] = set()
    while stack:
        node, parent_key, prefix, last = stack.pop()
        lines.append(f"{prefix}{'└─ ' if last else '├─ '}{_label(node, parent_key, palette)}")
        if node.key in seen:
            continue  # a call key repeated in a corrupt-but-parsed file: draw its children once
        seen.add(node.key)
        below = children.get(node.key, [])
        inner = prefix + ("   " if last else "│  ")
        stack.extend(
            (child, node.key, inner, index == len(below) - 1)
            for index, child in reversed(list(enumerate(below)))
        )
    return lines
