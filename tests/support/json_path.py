"""Read one value out of a decoded JSON document by path, typed, for assertions on output."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def json_at(document: object, *path: str | int) -> object:
    """The value at `path` (keys for objects, indexes for arrays); a wrong shape fails loudly."""
    value = document
    for step in path:
        if isinstance(step, str):
            assert isinstance(value, Mapping), f"expected an object before key {step!r}"
            value = value[step]
        else:
            assert isinstance(value, Sequence), f"expected an array before index {step}"
            assert not isinstance(value, str), f"expected an array before index {step}"
            value = value[step]
    return value
