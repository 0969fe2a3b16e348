"""Canonical bytes from a C encoder (orjson or ``json``) when they provably equal the exact form.

``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)`` and
``orjson.dumps(option=OPT_SORT_KEYS)`` already write canonical bytes for most real
records (both escape strings exactly as JSON.stringify does). They differ from CANON only
in: non-exact types they serialize anyway (tuples, subclasses, non-string keys),
code-point key order (differs from UTF-16 order only for keys with characters at or
above U+D800), number text
(exponents, integral floats written ``1.0``, integers beyond 2**53, orjson's ``null``
for NaN) and lone surrogates (both refuse to UTF-8-encode them). The type, key and number
conditions are checked by one walk over the containers; any doubt returns None and the
exact path decides.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable
from typing import Final

from cassette_canonical.parse import C_RECURSION_SAFE

_JSON_ENCODE: Final = json.JSONEncoder(
    ensure_ascii=False,
    separators=(",", ":"),
    sort_keys=True,
    allow_nan=False,
    check_circular=True,
).encode


def _json_bytes(value: object) -> bytes:
    """UTF-8 text from the C json encoder (raises on lone surrogates, cycles, deep values)."""
    if sys.getrecursionlimit() > C_RECURSION_SAFE:
        raise RecursionError("recursion limit too high for the C encoder's stack")
    return _JSON_ENCODE(value).encode("utf-8")


def _load_encoders() -> tuple[Callable[[object], bytes], ...]:
    """orjson first when it is importable (several times faster), the stdlib encoder always."""
    try:
        import orjson
    except ImportError:  # pragma: no cover - depends on the environment
        return (_json_bytes,)
    options = (
        orjson.OPT_SORT_KEYS
        | orjson.OPT_PASSTHROUGH_SUBCLASS
        | orjson.OPT_PASSTHROUGH_DATACLASS
        | orjson.OPT_PASSTHROUGH_DATETIME
    )

    def orjson_bytes(value: object) -> bytes:
        """orjson's UTF-8 output: same escaping as JSON.stringify, keys in code-point order."""
        return orjson.dumps(value, option=options)

    return (orjson_bytes, _json_bytes)


# Tried in order; each may raise on anything it cannot write, and the next one gets a turn.
ENCODERS: tuple[Callable[[object], bytes], ...] = _load_encoders()
_ORDER_SENSITIVE: Final = re.compile("[\ud800-\U0010ffff]")
_LEAF_TYPES: Final = frozenset({str, int, float, bool, type(None)})
_PLAIN_TYPES: Final = _LEAF_TYPES | {dict, list}
_CONTAINER_TYPES: Final = frozenset({dict, list})
_SAFE: Final = 2**53
# Python's repr writes a non-integral double in [1e-4, 1e16) positionally with its shortest
# digits, exactly as JavaScript does; outside that range it switches to exponent form.
_FIXED_LOW: Final = 1e-4
_FIXED_HIGH: Final = 1e16


def fast_canonical(value: object) -> bytes | None:
    """UTF-8 canonical bytes from a C encoder when they are certainly exact, else None."""
    for encode in ENCODERS:
        try:
            data = encode(value)
        except (TypeError, ValueError, RecursionError, OverflowError):
            continue
        # An encoder succeeded, so the value is acyclic and shallow: walking it terminates.
        return data if _plain_tree(value) else None
    return None


def _plain_tree(value: object) -> bool:
    """Whether every node has an exact JSON type and UTF-16 key order equals code-point order."""
    kind = type(value)
    if kind not in _CONTAINER_TYPES:
        return kind in _LEAF_TYPES and _plain_numbers([value])
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
        if (int in kinds or float in kinds) and not _plain_numbers(children):
            return False
        if not kinds.isdisjoint(_CONTAINER_TYPES):
            pending.extend([child for child in children if type(child) in _CONTAINER_TYPES])
    if not set(map(type, keys)) <= {str}:
        return False
    joined = "".join(keys)  # type: ignore[arg-type]
    return joined.isascii() or _ORDER_SENSITIVE.search(joined) is None


def _plain_numbers(children: Iterable[object]) -> bool:
    """Whether Python's text for every number among ``children`` equals JavaScript's."""
    for child in children:
        kind = type(child)
        if kind is int:
            if not -_SAFE <= child <= _SAFE:  # type: ignore[operator]
                return False
        elif kind is float and (
            child.is_integer() or not _FIXED_LOW <= abs(child) < _FIXED_HIGH  # type: ignore[attr-defined,arg-type]
        ):
            return False
    return True
