"""Lossless plain-JSON snapshots of Python values (NORM-1, D-1), walked iteratively."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Final

from returns.result import Failure, Result, Success

__all__ = ["NotLossless", "snapshot"]

#: Largest magnitude below which every int is a double exactly; beyond it we test the round trip.
_SAFE: Final = 2**53


_Container = dict[str, object] | list[object]
_Frame = tuple[Iterator[tuple[object, object]], _Container, int]


class NotLossless(Exception):
    """The value is not lossless plain JSON; the caller raises its own TypeError message."""


def _scalar(value: object) -> Result[object, NotLossless]:
    """A copy of a JSON scalar, or why it is not one."""
    if value is None or isinstance(value, (bool, str)):
        return Success(value)
    if isinstance(value, int):
        if -_SAFE <= value <= _SAFE:
            return Success(value)
        try:
            exact = int(float(value)) == value
        except OverflowError:
            exact = False
        return Success(value) if exact else Failure(NotLossless("integer is not a double"))
    if isinstance(value, float):
        if not math.isfinite(value) or (value == 0.0 and math.copysign(1.0, value) < 0):
            return Failure(NotLossless("number is not finite or is -0"))
        return Success(value)
    return Failure(NotLossless(f"{type(value).__name__} is not plain JSON"))


def _copy_of(item: object) -> Result[_Container, NotLossless] | None:
    """An empty copy for a container (filled later), a scalar copy, or None for no container."""
    if type(item) is dict:
        return Success({})
    if type(item) is list:
        return Success([])
    if isinstance(item, (dict, list)):
        return Failure(NotLossless(f"{type(item).__name__} is not plain JSON"))
    return None


def snapshot(value: object) -> Result[object, NotLossless]:
    """Deep-copy dicts (str keys), lists and scalars; reject tuples, other objects and cycles."""
    first = _copy_of(value)
    if first is None:
        return _scalar(value)
    if isinstance(first, Failure):
        return first
    root = first.unwrap()
    frames: list[_Frame] = [(_entries(value), root, id(value))]
    on_path = {id(value)}
    while frames:
        entries, target, ident = frames[-1]
        entry = next(entries, None)
        if entry is None:
            frames.pop()
            on_path.discard(ident)
            continue
        key, item = entry
        if isinstance(target, dict) and not isinstance(key, str):
            return Failure(NotLossless("object key is not a string"))
        container = _copy_of(item)
        if container is None:
            scalar = _scalar(item)
            if isinstance(scalar, Failure):
                return scalar
            copied: object = scalar.unwrap()
        elif isinstance(container, Failure):
            return container
        else:
            if id(item) in on_path:
                return Failure(NotLossless("cycle"))
            child = container.unwrap()
            on_path.add(id(item))
            frames.append((_entries(item), child, id(item)))
            copied = child
        if isinstance(target, dict):
            target[str(key)] = copied
        else:
            target.append(copied)
    return Success(root)


def _entries(container: object) -> Iterator[tuple[object, object]]:
    """(key, item) pairs of a dict, or (index, item) pairs of a list."""
    if isinstance(container, dict):
        return iter(container.items())
    assert isinstance(container, list)
    return enumerate(container)
