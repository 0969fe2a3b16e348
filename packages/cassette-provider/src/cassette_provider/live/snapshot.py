"""Lossless plain-JSON snapshots of Python values (NORM-1, D-1), walked iteratively."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

from cassette_canonical.fast_path import (
    float_text_as_in_js,
    keys_sort_alike,
    plain_tree,
    sorted_text,
)
from cassette_canonical.limits import MAX_SAFE_INTEGER
from returns.result import Failure, Result, Success

__all__ = [
    "NotLossless",
    "Strings",
    "canonical_check",
    "canonical_snapshot",
    "copy_snapshot",
    "snapshot",
    "snapshot_object",
]

#: The exact scalar types of plain JSON; their subclasses are not (see `_scalar`).
_PLAIN_SCALARS: Final = frozenset({type(None), bool, str, int, float})
#: Largest magnitude below which every int is a double exactly; beyond it we test the round trip.
_SAFE: Final = MAX_SAFE_INTEGER + 1  # 2^53: integers up to it are exact doubles


_Container = dict[str, object] | list[object]
#: A container to copy (source, empty copy), or the id of one whose subtree is done.
_Pending = tuple[Any, _Container] | int


class NotLossless(Exception):
    """The value is not lossless plain JSON; the caller raises its own TypeError message."""


# The walk below visits every node, so its helpers answer with the copy or the reason
# (a NotLossless value) instead of wrapping each node in a Result; `snapshot` returns one.


def _scalar(value: object) -> object:
    """A copy of a JSON scalar, or a NotLossless saying why it is not one.

    Types are matched exactly: a `str`, `int` or `float` subclass (`enum.StrEnum`, `IntEnum`,
    numpy scalars) is an object with behaviour of its own, not plain JSON, and the canonical
    writer refuses it, so it is refused here, at the call that brought it (issue 26).
    """
    if type(value) not in _PLAIN_SCALARS:
        return NotLossless(f"{type(value).__name__} is not plain JSON")
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if -_SAFE <= value <= _SAFE:
            return value
        try:
            exact = int(float(value)) == value
        except OverflowError:
            exact = False
        return value if exact else NotLossless("integer is not a double")
    if isinstance(value, float):
        if not math.isfinite(value) or (value == 0.0 and math.copysign(1.0, value) < 0):
            return NotLossless("number is not finite or is -0")
        return value
    return NotLossless(f"{type(value).__name__} is not plain JSON")


def _copy_of(item: object) -> _Container | NotLossless | None:
    """An empty copy for a container (filled later), a NotLossless, or None for no container."""
    if type(item) is dict:
        return {}
    if type(item) is list:
        return []
    if isinstance(item, (dict, list)):
        return NotLossless(f"{type(item).__name__} is not plain JSON")
    return None


def snapshot(value: object) -> Result[object, NotLossless]:
    """Deep-copy dicts (str keys), lists and scalars; reject tuples, other objects and cycles."""
    copied = _snapshot(value, [], acyclic=sorted_text(value) is not None)
    return Failure(copied) if isinstance(copied, NotLossless) else Success(copied)


@dataclass(frozen=True, slots=True)
class Strings:
    """Every string a snapshot walk copied, member values and object keys apart.

    The redaction gate reads them joined (issue 24: no second walk over a result).
    """

    values: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)


def _snapshot(
    value: object, odd: list[float], *, acyclic: bool, strings: Strings | None = None
) -> object:
    """`snapshot`'s copy or NotLossless, noting in `odd` each float whose text JavaScript
    may write otherwise (a plain answer: the public functions wrap it once).

    One pass per container (issue 24): its members are copied in a plain loop, strings, the
    other common scalars and new empty containers inline, and only nested containers go on
    the stack. Unless the value is known `acyclic` (orjson wrote it), an `int` on the stack
    marks where a container's subtree ends, so `on_path` holds exactly the ancestors of
    what is being copied: a container met again below itself is a cycle, while one shared
    by two branches is simply copied twice. Given `strings`, it collects what it copies.
    """
    # Each string copied is noted as it is copied: in `strings` for the gate, if given, else
    # in a list dropped at the end (a C append costs less than a test per string).
    note = ([] if strings is None else strings.values).append
    root = _copy_of(value)
    if root is None:
        return _number(value, odd)
    if isinstance(root, NotLossless):
        return root
    pending: list[_Pending] = [(value, root)]
    on_path: set[int] | None = None if acyclic else set()
    while pending:
        entry = pending.pop()
        if type(entry) is int:
            on_path.discard(entry)  # type: ignore[union-attr] # only pushed while tracking
            continue
        source, target = entry  # type: ignore[misc] # not an int: a (source, copy) pair
        if on_path is not None:
            ident = id(source)
            if ident in on_path:
                return NotLossless("cycle")
            on_path.add(ident)
            pending.append(ident)
        # Strings, booleans and null (most members) are taken inline, without a call.
        if isinstance(target, dict):
            for key, item in source.items():
                if type(key) is not str:
                    return NotLossless("object key is not a string")
                kind = type(item)
                if kind is str:
                    target[key] = item
                    note(item)
                    continue
                if kind is bool or item is None:
                    target[key] = item
                    continue
                if kind is dict or kind is list:  # queued to be filled, without a call
                    fresh: _Container = {} if kind is dict else []
                    pending.append((item, fresh))
                    target[key] = fresh
                    continue
                copied = _other(item, odd)
                if isinstance(copied, NotLossless):
                    return copied
                target[key] = copied
            if strings is not None:
                strings.keys.extend(target)
        else:
            append = target.append
            for item in source:
                kind = type(item)
                if kind is str:
                    append(item)
                    note(item)
                    continue
                if kind is bool or item is None:
                    append(item)
                    continue
                if kind is dict or kind is list:
                    fresh = {} if kind is dict else []
                    pending.append((item, fresh))
                    append(fresh)
                    continue
                copied = _other(item, odd)
                if isinstance(copied, NotLossless):
                    return copied
                append(copied)
    return root


def _other(item: object, odd: list[float]) -> object:
    """A member that is no string, boolean, null or plain container: a number's copy, or a
    NotLossless (a dict or list subclass, any other object)."""
    if isinstance(item, (dict, list)):
        return NotLossless(f"{type(item).__name__} is not plain JSON")
    return _number(item, odd)


def _number(item: object, odd: list[float]) -> object:
    """`_scalar`, noting a float whose text JavaScript may write otherwise in `odd`."""
    copied = _scalar(item)
    if type(copied) is float and not float_text_as_in_js(copied):
        odd.append(copied)
    return copied


def canonical_snapshot(
    value: object, strings: Strings | None = None
) -> Result[tuple[dict[str, object], bytes | None], NotLossless]:
    """The snapshot of a JSON object and, when proved, its canonical text (CANON-8).

    orjson writes the value once; the walk that copies it then proves what makes that text
    canonical (exact types, numbers written as JavaScript writes them), so neither a second
    walk nor a second serialization is spent on the text (issue 24). Given `strings`, the
    walk collects every string it copies there.
    """
    return _proved_copy(value, sorted_text(value), strings)


def _proved_copy(
    value: object, text: bytes | None, strings: Strings | None = None
) -> Result[tuple[dict[str, object], bytes | None], NotLossless]:
    """`canonical_snapshot` of `value`, whose orjson text (`sorted_text`) is `text`."""
    odd: list[float] = []
    copied = _snapshot(value, odd, acyclic=text is not None, strings=strings)
    if isinstance(copied, NotLossless):
        return Failure(copied)
    if type(copied) is not dict:
        return Failure(_not_an_object(copied))
    proved = text if text is not None and not odd and keys_sort_alike(text) else None
    return Success((copied, proved))


def canonical_check(value: object) -> Result[tuple[dict[str, object], bytes | None], NotLossless]:
    """`canonical_snapshot`'s verdict and proof for a value read at once and not kept, which
    is handed back itself, uncopied (issue 24: a request the recording stores only the
    metadata of, and a parent context, are only hashed and read, so a copy would be dropped
    at once).

    A value `plain_tree` proves (exact types, numbers JavaScript writes alike) is plain JSON
    the copying walk would accept with that same text; anything else (an odd number, a
    value orjson does not write) takes `canonical_snapshot`, which decides.
    """
    text = sorted_text(value)
    if text is not None and type(value) is dict and plain_tree(value):
        return Success((value, text))  # plain_tree proved the key order too
    return _proved_copy(value, text)


def snapshot_object(value: object) -> Result[dict[str, object], NotLossless]:
    """The snapshot of a value that must be a JSON object (a request, a context, a result)."""
    return snapshot(value).bind(_object)


def _object(copied: object) -> Result[dict[str, object], NotLossless]:
    """The copy typed as the JSON object it is, or a NotLossless when it is not one."""
    if isinstance(copied, dict):
        return Success(copied)
    return Failure(_not_an_object(copied))


def _not_an_object(copied: object) -> NotLossless:
    """Why a copied value cannot stand for a request, context or result."""
    return NotLossless(f"{type(copied).__name__} is not a JSON object")


def copy_snapshot(value: dict[str, object]) -> dict[str, object]:
    """A deep copy of a snapshot (plain dicts, lists and scalars only), walked iteratively.

    No check: `value` came out of `snapshot`, so only its containers need copying.
    """
    root = dict(value)
    pending: list[dict[str, object] | list[object]] = [root]
    while pending:
        node = pending.pop()
        slots = node.items() if isinstance(node, dict) else enumerate(node)
        for slot, item in slots:
            if type(item) is dict:
                copied: dict[str, object] | list[object] = dict(item)
            elif type(item) is list:
                copied = list(item)
            else:
                continue
            node[slot] = copied  # type: ignore[index] # the slot was taken from this very node
            pending.append(copied)
    return root
