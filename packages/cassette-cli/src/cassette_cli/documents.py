"""Typed reads of the plain-data documents the renderers print (summary, calls, diff)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cassette_canonical.limits import MAX_SAFE_INTEGER

__all__ = [
    "Document",
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


def text(document: Document, key: str) -> str:
    """A string member, or "" when absent or not a string."""
    value = document.get(key)
    return value if isinstance(value, str) else ""


def number(document: Document, key: str) -> int | float:
    """A number member, or 0 when absent or not a number (booleans are not numbers)."""
    value = document.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return value


def boolean(document: Document, key: str) -> bool:
    """A boolean member, False unless it is exactly true."""
    return document.get(key) is True


def mapping(document: Document, key: str) -> Document:
    """An object member, or an empty one."""
    value = document.get(key)
    return value if isinstance(value, Mapping) else {}


def documents(document: Document, key: str) -> tuple[Document, ...]:
    """The object items of an array member."""
    value = document.get(key)
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ()
    return tuple(item for item in value if isinstance(item, Mapping))


def strings(document: Document, key: str) -> tuple[str, ...]:
    """The string items of an array member."""
    value = document.get(key)
    if not isinstance(value, Sequence) or isinstance(value, str):
        return ()
    return tuple(item for item in value if isinstance(item, str))


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
