"""Canonical text from the C ``json`` encoder when it provably equals the exact form.

``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` already writes
canonical bytes for most real records. It differs from CANON only in: non-exact types it
serializes anyway (tuples, subclasses, non-string keys), code-point key order (differs
from UTF-16 order only for keys with characters at or above U+D800), number text
(exponents, integral floats written ``1.0``, integers beyond 2**53) and lone surrogates.
Each is checked cheaply here; any doubt returns None and the exact path decides.
"""

from __future__ import annotations

import json
import re
from typing import Final

_ENCODE: Final = json.JSONEncoder(
    ensure_ascii=False,
    separators=(",", ":"),
    sort_keys=True,
    allow_nan=False,
    check_circular=True,
).encode

# A number token (at the start or after '[', ':' or ',') whose Python text may differ from
# JavaScript's: an exponent, an integral float ("1.0", "-0.0"), or 16+ integer digits.
# Matches inside strings are harmless false alarms that only cost the exact path.
_RISKY_NUMBER: Final = re.compile(
    r"(?:^|[\[:,])-?(?:[0-9]+(?:\.[0-9]+)?[eE]|[0-9]{16}|[0-9]+\.0(?![0-9]))"
)
_ORDER_SENSITIVE: Final = re.compile("[\ud800-\U0010ffff]")
_LEAF_TYPES: Final = frozenset({str, int, float, bool, type(None)})
_PLAIN_TYPES: Final = _LEAF_TYPES | {dict, list}
_CONTAINER_TYPES: Final = frozenset({dict, list})


def fast_canonical(value: object) -> str | None:
    """The C encoder's text when it is certainly canonical, else None (surrogates unchecked).

    The caller must still reject text holding surrogate code points (``str.encode`` does
    that for free when hashing).
    """
    try:
        text = _ENCODE(value)
    except (TypeError, ValueError, RecursionError):
        return None
    # The encoder succeeded, so the value is acyclic and shallow: walking it terminates.
    if not _plain_tree(value):
        return None
    if _RISKY_NUMBER.search(text) is not None:
        return None
    return text


def _plain_tree(value: object) -> bool:
    """Whether every node has an exact JSON type and UTF-16 key order equals code-point order."""
    kind = type(value)
    if kind not in _CONTAINER_TYPES:
        return kind in _LEAF_TYPES
    keys: list[object] = []
    pending: list[object] = [value]
    while pending:
        node = pending.pop()
        if type(node) is dict:
            keys.extend(node)
            children = node.values()
        else:
            children = node  # type: ignore[assignment]
        kinds = set(map(type, children))
        if not kinds <= _PLAIN_TYPES:
            return False
        if not kinds.isdisjoint(_CONTAINER_TYPES):
            pending.extend([child for child in children if type(child) in _CONTAINER_TYPES])
    if not set(map(type, keys)) <= {str}:
        return False
    joined = "".join(keys)  # type: ignore[arg-type]
    return joined.isascii() or _ORDER_SENSITIVE.search(joined) is None
