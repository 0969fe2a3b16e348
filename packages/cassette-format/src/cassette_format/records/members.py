"""On-disk objects whose optional members are absent, never null (FMT-12, WRITE-2, LLMREPLAY)."""

from __future__ import annotations

from typing import TypeVar

__all__ = ["present"]

_Value = TypeVar("_Value")


def present(*members: tuple[str, _Value | None]) -> dict[str, _Value]:
    """The object of the members whose value is not None, in the order given."""
    return {key: value for key, value in members if value is not None}
