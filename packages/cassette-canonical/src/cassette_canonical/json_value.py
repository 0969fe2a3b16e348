"""The Python shape of a JSON value as parse_json produces it and canonical_json accepts it."""

from __future__ import annotations

from typing import TypeAlias, Union

JsonValue: TypeAlias = Union[  # noqa: UP007 - a recursive alias needs the string forward refs
    bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"], None
]
