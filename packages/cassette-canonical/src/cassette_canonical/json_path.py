"""JSON paths (``$.a[0]["b c"]``) that locate a value inside a document for error messages."""

from __future__ import annotations

import re
from collections.abc import Iterable

_IDENTIFIER = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


def json_path(steps: Iterable[str | int]) -> str:
    """Render member names and array indexes as a JSON path rooted at ``$``."""
    parts = ["$"]
    for step in steps:
        if isinstance(step, int):
            parts.append(f"[{step}]")
        elif _IDENTIFIER.fullmatch(step):
            parts.append(f".{step}")
        else:
            parts.append("[" + _quoted_name(step) + "]")
    return "".join(parts)


def _quoted_name(name: str) -> str:
    """Quote a member name ASCII-only, so paths never carry raw control or surrogate characters."""
    escaped = name.encode("unicode_escape", "backslashreplace").decode("ascii")
    return '"' + escaped.replace('"', '\\"') + '"'
