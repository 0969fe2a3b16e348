"""Strict typed reads of the plain-data documents the renderers print: never a silent default."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final, TypeVar

from cassette_canonical.limits import MAX_SAFE_INTEGER

__all__ = [
    "Document",
    "DocumentShapeError",
    "boolean",
    "count_text",
    "documents",
    "js_number",
    "mapping",
    "number",
    "strings",
    "text",
]

Document = Mapping[str, object]
_Kind = TypeVar("_Kind")
_ABSENT: Final = object()


class _Never:
    """No value is an instance: the check always refuses."""


class DocumentShapeError(KeyError):
    """A report document lacks a member its renderer prints, or holds it with another type.

    The documents are the CLI's own (built a few lines above the renderer), so this is a bug,
    never bad input: it is raised loudly instead of printing "" or 0 for a misspelt key.
    """


def _member(document: Document, key: str, kind: type[_Kind], what: str) -> _Kind:
    value = document.get(key, _ABSENT)
    if isinstance(value, kind) and not (kind is not bool and isinstance(value, bool)):
        return value
    shown = "absent" if value is _ABSENT else type(value).__name__
    raise DocumentShapeError(f"report member {key!r} must be {what}, found {shown}")


def text(document: Document, key: str) -> str:
    """A string member."""
    return _member(document, key, str, "a string")


def number(document: Document, key: str) -> int | float:
    """A number member (booleans are not numbers)."""
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        _member(document, key, _Never, "a number")
    return value  # type: ignore[return-value] # checked just above


def boolean(document: Document, key: str) -> bool:
    """A boolean member."""
    return _member(document, key, bool, "a boolean")


def mapping(document: Document, key: str) -> Document:
    """An object member."""
    return _member(document, key, Mapping, "an object")  # type: ignore[type-abstract]


def _array(document: Document, key: str) -> Sequence[object]:
    value = document.get(key)
    if not isinstance(value, Sequence) or isinstance(value, str):
        _member(document, key, _Never, "an array")
    return value  # type: ignore[return-value] # checked just above


def documents(document: Document, key: str) -> tuple[Document, ...]:
    """The items of an array member, each an object."""
    items = _array(document, key)
    if not all(isinstance(item, Mapping) for item in items):
        raise DocumentShapeError(f"report member {key!r} must hold objects only")
    return tuple(items)  # type: ignore[arg-type] # checked just above


def strings(document: Document, key: str) -> tuple[str, ...]:
    """The items of an array member, each a string."""
    items = _array(document, key)
    if not all(isinstance(item, str) for item in items):
        raise DocumentShapeError(f"report member {key!r} must hold strings only")
    return tuple(items)  # type: ignore[arg-type] # checked just above


def js_number(value: int | float) -> str:
    """A number as JavaScript's template literal prints it (CANON-5).

    Safe integers print as Python prints them; anything else goes through
    `cassette_canonical.number_text`, imported only then to keep `verify` start-up lean.
    """
    if isinstance(value, int) and -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return str(value)
    from cassette_canonical import number_text

    return number_text(value).value_or(str(value))


def count_text(document: Document, key: str) -> str:
    """A number member as JavaScript's template literal prints it (CANON-5)."""
    return js_number(number(document, key))
