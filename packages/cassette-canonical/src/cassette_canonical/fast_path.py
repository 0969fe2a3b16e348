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

``is_canonical_text`` answers the reverse question for bytes orjson has just parsed (a
cassette line): are they already the value's canonical JSON? orjson re-serializes the
value and scans of the bytes rule out the few constructs where its text differs from
JavaScript's, so no walk over the value is needed.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable
from typing import Final

import orjson

from cassette_canonical.limits import C_RECURSION_SAFE, MAX_SAFE_INTEGER
from cassette_canonical.strings import sorts_by_code_point, utf16_sort_key

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
    """orjson first (several times faster), the stdlib encoder for what orjson refuses."""
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
_LEAF_TYPES: Final = frozenset({str, int, float, bool, type(None)})
_PLAIN_TYPES: Final = _LEAF_TYPES | {dict, list}
_CONTAINER_TYPES: Final = frozenset({dict, list})
_SAFE: Final = MAX_SAFE_INTEGER + 1  # 2^53: the last integer of the exact run
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
        return data if plain_tree(value) else None
    return None


def plain_tree(value: object) -> bool:
    """Whether every node has an exact JSON type and UTF-16 key order equals code-point order.

    Then orjson's key-sorted text of `value` is its canonical text. Only for a value an
    encoder has written (so acyclic: the walk would not end on a cycle). Each member is
    looked at once, by its exact type (issue 24: cheaper than a set of types per container
    for the small mixed containers records are made of).
    """
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
        for child in children:
            kind = type(child)
            if kind is str or kind is bool or child is None:
                continue
            if kind is dict or kind is list:
                pending.append(child)
            elif kind is int:
                if not -_SAFE <= child <= _SAFE:
                    return False
            elif kind is not float or not float_text_as_in_js(child):
                return False
    if not set(map(type, keys)) <= {str}:
        return False
    return sorts_by_code_point("".join(keys))  # type: ignore[arg-type]


def _plain_numbers(children: Iterable[object]) -> bool:
    """Whether Python's text for every number among ``children`` equals JavaScript's."""
    for child in children:
        kind = type(child)
        if kind is int:
            if not -_SAFE <= child <= _SAFE:  # type: ignore[operator]
                return False
        elif kind is float and not float_text_as_in_js(child):  # type: ignore[arg-type]
            return False
    return True


def float_text_as_in_js(number: float) -> bool:
    """Whether Python's (and orjson's) text for a finite float surely equals JavaScript's."""
    return not number.is_integer() and _FIXED_LOW <= abs(number) < _FIXED_HIGH


# Where orjson's number text differs from JavaScript's: exponents +16..+20 (orjson writes
# `1e+16` where JS writes 10000000000000000; from e+21 on both agree), exponent -6
# (`1e-6` for JS `0.000001`), integral floats (`100.0`, `-0.0`); ints beyond 2^53 (D-1)
# make orjson's OPT_STRICT_INTEGER refuse to serialize. Matches inside strings only cost
# a trip through the exact path. The scans look for a number's end at a delimiter, so a
# top-level number (the text ends in a digit) is left to the exact path.
_INTEGRAL_FLOAT: Final = re.compile(rb"\.0[,}\]]")
# Searched as `-6` plus a delimiter, then checked for the `e` before it: `e` is so common
# in text that a search starting from it costs twice as much.
_MINUS_SIX: Final = re.compile(rb"-6[,}\]]")
_EXPONENT_PLAIN_IN_JS: Final = re.compile(rb"e\+(?:1[6-9]|20)[,}\]]")
# Supplementary characters (lead bytes F0-F4) next to U+E000-U+FFFF (EE, EF): UTF-16 and
# code-point key orders differ only when both occur.
_ASTRAL_LEADS: Final = (b"\xf0", b"\xf1", b"\xf2", b"\xf3", b"\xf4")
_STRICT: Final = orjson.OPT_STRICT_INTEGER
_SORTED: Final = orjson.OPT_SORT_KEYS | _STRICT
_SORTED_OR_REFUSE: Final = (
    _SORTED
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def is_canonical_text(raw: bytes, value: object) -> bool:
    """Whether ``raw``, the bytes ``orjson.loads`` turned into ``value``, are its canonical JSON.

    True also proves the text had no duplicate members, no layout slack and only canonical
    numbers (CANON-1..7), since re-serializing the value gave the very same bytes.
    """
    if raw[-1:].isdigit():  # a top-level number: the scans below need a delimiter after it
        return False
    mixed = not keys_sort_alike(raw)  # then the keys are ordered explicitly
    try:
        text = (
            orjson.dumps(_utf16_ordered(value), option=_STRICT)
            if mixed
            else orjson.dumps(value, option=_SORTED)
        )
    except orjson.JSONEncodeError:
        return False
    if text != raw:
        return False
    # Each pattern starts with a literal, which `re` finds by a fast prefix search: about a
    # third of what a two-byte `in` test costs on a 3 kB line, so no substring prefilter
    # (a one-byte `in` is memchr, cheaper still: kept for the rare `+`).
    if b"+" in raw and _EXPONENT_PLAIN_IN_JS.search(raw):
        return False
    if _INTEGRAL_FLOAT.search(raw) is not None:
        return False
    return not _has_exponent_minus_six(raw)


def keys_sort_alike(text: bytes) -> bool:
    """Whether orjson's code-point key order in ``text`` is surely the UTF-16 order (CANON-3).

    Only a supplementary character beside one in U+E000-U+FFFF can order keys differently.
    """
    return not (
        (b"\xee" in text or b"\xef" in text) and any(lead in text for lead in _ASTRAL_LEADS)
    )


def sorted_text(value: object) -> bytes | None:
    """orjson's key-sorted text of `value`, or None where orjson refuses it.

    orjson refuses a cycle (its depth limit), an integer beyond 2^53 and, with the
    pass-through options, subclasses, dataclasses and dates, so a text proves the value
    acyclic; it is the canonical text once the value is proved plain (exact JSON types,
    `float_text_as_in_js` numbers) and `keys_sort_alike` (issue 24).
    """
    try:
        return orjson.dumps(value, option=_SORTED_OR_REFUSE)
    except orjson.JSONEncodeError:
        return None


def _has_exponent_minus_six(raw: bytes) -> bool:
    """Whether an ``e-6`` exponent ends a number somewhere in the text."""
    hit = _MINUS_SIX.search(raw)
    while hit is not None:
        if raw[hit.start() - 1 : hit.start()] == b"e":
            return True
        hit = _MINUS_SIX.search(raw, hit.end() - 1)
    return False


def _utf16_ordered(value: object) -> object:
    """A copy whose dicts insert keys in UTF-16 code-unit order (CANON-3), iteratively."""
    root: list[object] = [None]
    pending: list[tuple[object, list[object] | dict[str, object], int | str]] = [(value, root, 0)]
    while pending:
        item, parent, slot = pending.pop()
        copy: object = item
        if type(item) is dict:
            ordered: dict[str, object] = {}
            for key in sorted(item, key=utf16_sort_key):
                ordered[key] = None
                pending.append((item[key], ordered, key))
            copy = ordered
        elif type(item) is list:
            items: list[object] = [None] * len(item)
            pending.extend((element, items, i) for i, element in enumerate(item))
            copy = items
        if isinstance(parent, dict) and isinstance(slot, str):  # noqa: SIM114 - two narrowings
            parent[slot] = copy
        elif isinstance(parent, list) and isinstance(slot, int):
            parent[slot] = copy
    return root[0]
