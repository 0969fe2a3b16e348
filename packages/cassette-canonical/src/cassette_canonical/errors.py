"""The one error type of cassette-canonical: a stable code, a message and a location."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

JSON_INVALID_UTF8: Final = "JSON_INVALID_UTF8"
JSON_BOM: Final = "JSON_BOM"
JSON_SYNTAX: Final = "JSON_SYNTAX"
JSON_DUPLICATE_MEMBER: Final = "JSON_DUPLICATE_MEMBER"
JSON_NUMBER_NOT_LOSSLESS: Final = "JSON_NUMBER_NOT_LOSSLESS"
NOT_JSON_VALUE: Final = "NOT_JSON_VALUE"
NON_STRING_KEY: Final = "NON_STRING_KEY"
NON_LOSSLESS_NUMBER: Final = "NON_LOSSLESS_NUMBER"
CYCLIC_VALUE: Final = "CYCLIC_VALUE"

ERROR_CODES: Final = frozenset(
    {
        JSON_INVALID_UTF8,
        JSON_BOM,
        JSON_SYNTAX,
        JSON_DUPLICATE_MEMBER,
        JSON_NUMBER_NOT_LOSSLESS,
        NOT_JSON_VALUE,
        NON_STRING_KEY,
        NON_LOSSLESS_NUMBER,
        CYCLIC_VALUE,
    }
)


@dataclass(frozen=True, slots=True)
class CanonicalError:
    """Why a text is not strict JSON or a value has no canonical form, and where.

    Text errors carry a 1-based ``line``/``column`` (and the JSON ``path`` of the
    enclosing container where one is known); value errors carry the JSON ``path``.
    Messages never quote string content from the input.
    """

    code: str
    message: str
    path: str | None = None
    line: int | None = None
    column: int | None = None

    def __str__(self) -> str:
        """Render as ``<code>: <message> (at <location>)`` for logs and exceptions."""
        where = []
        if self.line is not None:
            where.append(f"line {self.line} column {self.column}")
        if self.path is not None:
            where.append(self.path)
        suffix = f" (at {', '.join(where)})" if where else ""
        return f"{self.code}: {self.message}{suffix}"
