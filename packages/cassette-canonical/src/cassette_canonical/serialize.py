"""The exact, iterative canonical serializer (CANON-1..CANON-7 with decision D-1).

It walks the value with an explicit stack of frames, so nesting depth is bounded only by
memory, and it rejects anything outside the JSON domain with the JSON path where it was
found. Only exact built-in types count: subclasses (bool aside), tuples, sets, bytes and
other objects are rejected rather than guessed at.
"""

from __future__ import annotations

from typing import Final

from returns.result import Failure, Result, Success

from cassette_canonical.errors import (
    CYCLIC_VALUE,
    NON_LOSSLESS_NUMBER,
    NON_STRING_KEY,
    NOT_JSON_VALUE,
    CanonicalError,
)
from cassette_canonical.json_path import json_path
from cassette_canonical.numbers import float_text, int_text
from cassette_canonical.strings import (
    has_surrogate,
    join_surrogate_pairs,
    quote,
    sorts_by_code_point,
    utf16_sort_key,
)

_NON_LOSSLESS: Final = "canonical JSON contains a non-lossless number"


class _Frame:
    """One open container on the walk: its members in output order and the next position."""

    __slots__ = ("container", "keys", "next")

    def __init__(self, container: dict[str, object] | list[object], keys: list[str] | None):
        self.container = container
        self.keys = keys
        self.next = 0


def serialize_exact(value: object) -> Result[str, CanonicalError]:
    """Canonical JSON text of ``value``, or the first reason it has none (with its path)."""
    out: list[str] = []
    emit = out.append
    frames: list[_Frame] = []
    open_ids: set[int] = set()
    pending: object = value
    has_pending = True
    while True:
        if has_pending:
            kind = type(pending)
            if kind is str:
                emit(quote(pending))  # type: ignore[arg-type]
            elif pending is None:
                emit("null")
            elif pending is True:
                emit("true")
            elif pending is False:
                emit("false")
            elif kind is int or kind is float:
                text = int_text(pending) if kind is int else float_text(pending)  # type: ignore[arg-type]
                if text is None:
                    return Failure(_error(NON_LOSSLESS_NUMBER, _NON_LOSSLESS, frames))
                emit(text)
            elif kind is dict or kind is list:
                ident = id(pending)
                if ident in open_ids:
                    return Failure(
                        _error(CYCLIC_VALUE, "value contains itself (a reference cycle)", frames)
                    )
                if kind is dict:
                    members: dict[object, object] = pending  # type: ignore[assignment]
                    ordered = _sorted_keys(members, frames)
                    if isinstance(ordered, CanonicalError):
                        return Failure(ordered)
                    if not ordered:
                        emit("{}")
                    else:
                        emit("{")
                        open_ids.add(ident)
                        frames.append(_Frame(pending, ordered))  # type: ignore[arg-type]
                elif not pending:
                    emit("[]")
                else:
                    emit("[")
                    open_ids.add(ident)
                    frames.append(_Frame(pending, None))  # type: ignore[arg-type]
            else:
                return Failure(
                    _error(NOT_JSON_VALUE, f"{kind.__name__} is not a JSON value", frames)
                )
        if not frames:
            return Success("".join(out))
        frame = frames[-1]
        position = frame.next
        names = frame.keys
        if names is None:
            items: list[object] = frame.container  # type: ignore[assignment]
            if position < len(items):
                if position:
                    emit(",")
                pending = items[position]
                frame.next = position + 1
                has_pending = True
                continue
            emit("]")
        else:
            if position < len(names):
                key = names[position]
                emit("," + quote(key) + ":" if position else quote(key) + ":")
                members_of: dict[str, object] = frame.container  # type: ignore[assignment]
                pending = members_of[key]
                frame.next = position + 1
                has_pending = True
                continue
            emit("}")
        frames.pop()
        open_ids.discard(id(frame.container))
        has_pending = False


def _sorted_keys(members: dict[object, object], frames: list[_Frame]) -> list[str] | CanonicalError:
    """The object's keys in UTF-16 code-unit order (CANON-3), or why they cannot be keys."""
    keys: list[str] = []
    for key in members:
        if type(key) is not str:
            return _error(
                NON_STRING_KEY, f"object key of type {type(key).__name__} is not a string", frames
            )
        keys.append(key)
    joined = "".join(keys)
    if sorts_by_code_point(joined):
        keys.sort()
        return keys
    if has_surrogate(joined) and len({join_surrogate_pairs(k) for k in keys}) != len(keys):
        return _error(
            NOT_JSON_VALUE, "object keys collide once surrogate pairs are combined", frames
        )
    keys.sort(key=utf16_sort_key)
    return keys


def _error(code: str, message: str, frames: list[_Frame]) -> CanonicalError:
    """An error located at the value the walk is on (the last member each frame handed out)."""
    steps: list[str | int] = []
    for frame in frames:
        index = frame.next - 1
        steps.append(index if frame.keys is None else frame.keys[index])
    return CanonicalError(code, message, path=json_path(steps))
