"""Which members of two stored full requests differ, as JSON paths and never as values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from cassette_canonical.json_path import json_path

__all__ = ["MEMBER_PATH_LIMIT", "MemberPaths", "differing_paths"]

#: At most this many paths are kept; the rest are counted, so a rewritten prompt stays small.
MEMBER_PATH_LIMIT: Final = 32

Step = str | int


@dataclass(frozen=True, slots=True)
class MemberPaths:
    """Paths such as `prompt[0].text` in document order, and how many more were left out."""

    paths: tuple[str, ...]
    more: int = 0


def _path(steps: tuple[Step, ...]) -> str:
    """`prompt[0].text`: a JSON path without its `$` root (names quoted ASCII-only)."""
    return json_path(steps).removeprefix("$").removeprefix(".")


def _same_scalar(before: object, after: object) -> bool:
    """Equal JSON scalars; a boolean never equals a number (CANON-1)."""
    if isinstance(before, bool) or isinstance(after, bool):
        return before is after
    return before == after


def differing_paths(before: object, after: object) -> MemberPaths:
    """Every leaf, element or member that differs between two JSON values (iterative walk).

    A member or element present on one side only is named itself; containers of different
    kinds are named at the container. Values are never kept, only where they differ.
    """
    found: list[str] = []
    more = 0
    pending: list[tuple[tuple[Step, ...], object, object]] = [((), before, after)]
    while pending:
        steps, old, new = pending.pop()
        children: list[tuple[tuple[Step, ...], object, object]] = []
        differs = False
        if isinstance(old, Mapping) and isinstance(new, Mapping):
            names = [*old, *(name for name in new if name not in old)]
            for name in names:
                if name in old and name in new:
                    children.append(((*steps, str(name)), old[name], new[name]))
                else:
                    children.append(((*steps, str(name)), _ABSENT, _PRESENT))
        elif _is_array(old) and _is_array(new):
            old_items, new_items = _items(old), _items(new)
            for index in range(max(len(old_items), len(new_items))):
                if index < len(old_items) and index < len(new_items):
                    children.append(((*steps, index), old_items[index], new_items[index]))
                else:
                    children.append(((*steps, index), _ABSENT, _PRESENT))
        else:
            differs = not _same_scalar(old, new)
        if differs:
            if len(found) < MEMBER_PATH_LIMIT:
                found.append(_path(steps))
            else:
                more += 1
        pending.extend(reversed(children))
    return MemberPaths(tuple(found), more)


class _Marker:
    """A side that has no value at this path (never equal to anything)."""

    __slots__ = ()


_ABSENT: Final = _Marker()
_PRESENT: Final = _Marker()


def _is_array(value: object) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str | bytes)


def _items(value: object) -> Sequence[object]:
    return value if isinstance(value, Sequence) else ()
