"""Deeply immutable JSON values for record payloads: read-only views, thawed to plain copies.

A `FrozenObject` / `FrozenArray` owns a plain dict / list nobody else holds and offers no
way to change it; reading a nested object or array hands out another read-only view of
it (built on access, so decoding a record only wraps its payload and never walks it).
`freeze_json` copies caller data once (one iterative walk) before wrapping it; the
decoder adopts the dicts it has just parsed without copying (`adopt_object`,
`adopt_array`). `thaw()` / `thaw_json` give a fresh plain dict/list copy for `to_json`,
canonical JSON and callers that need to change a payload (the provider edge).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, ClassVar, TypeAlias, Union, overload

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "FrozenArray",
    "FrozenJson",
    "FrozenObject",
    "adopt_array",
    "adopt_canonical",
    "adopt_object",
    "canonical_text",
    "freeze_array",
    "freeze_json",
    "freeze_object",
    "shared_data",
    "thaw_json",
]

FrozenJson: TypeAlias = Union[bool, int, float, str, "FrozenObject", "FrozenArray", None]


def _view(item: object) -> FrozenJson:
    """A read-only view of one stored member: containers wrapped, scalars as they are."""
    if type(item) is dict:
        return _wrap_object(item)
    if type(item) is list:
        return _wrap_array(item)
    return item  # type: ignore[return-value] # a stored member is JSON unless a caller lied


class _Frozen:
    """What both views share: one private container, no way to rebind or delete it."""

    __slots__ = ("_data",)
    _data: dict[str, object] | list[object]
    #: The plain container type a view equals when the contents are equal.
    _plain: ClassVar[type]

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        if type(other) is type(self):
            return self._data == other._data
        if isinstance(other, self._plain):
            return self._data == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment] # equal to a dict/list, so unhashable like one

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data!r})"

    def __reduce__(self) -> tuple[object, ...]:
        return (_unpickled, (self._data,))


class FrozenObject(_Frozen, Mapping[str, FrozenJson]):
    """A JSON object no one can change; nested objects and arrays are frozen views too.

    It may carry its canonical JSON text, proved by whoever adopted it (`adopt_canonical`),
    so the writer puts those bytes in the line instead of serializing it again (issue 24).
    """

    __slots__ = ("_text",)
    _data: dict[str, object]
    _text: bytes | None
    _plain = dict

    def __getitem__(self, key: str) -> FrozenJson:
        return _view(self._data[key])

    def get(self, key: str, default: FrozenJson = None) -> FrozenJson:  # type: ignore[override]
        """The member `key`, or `default` when absent."""
        data = self._data
        return _view(data[key]) if key in data else default

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def thaw(self) -> dict[str, JsonValue]:
        """A fresh plain deep copy the caller may change."""
        copy: dict[str, JsonValue] = _copied(self._data)  # type: ignore[assignment]
        return copy


class FrozenArray(_Frozen, Sequence[FrozenJson]):
    """A JSON array no one can change; nested objects and arrays are frozen views too."""

    __slots__ = ()
    _data: list[object]
    _plain = list

    @overload
    def __getitem__(self, index: int) -> FrozenJson: ...

    @overload
    def __getitem__(self, index: slice) -> FrozenArray: ...

    def __getitem__(self, index: int | slice) -> FrozenJson | FrozenArray:
        if isinstance(index, slice):
            return _wrap_array(self._data[index])
        return _view(self._data[index])

    def __iter__(self) -> Iterator[FrozenJson]:
        return map(_view, self._data)

    def thaw(self) -> list[JsonValue]:
        """A fresh plain deep copy the caller may change."""
        copy: list[JsonValue] = _copied(self._data)  # type: ignore[assignment]
        return copy


def _unpickled(data: dict[str, object] | list[object]) -> FrozenObject | FrozenArray:
    """The view of unpickled data (a fresh container no one else holds)."""
    return _wrap_object(data) if type(data) is dict else _wrap_array(data)  # type: ignore[arg-type]


def _wrap_object(data: dict[str, object], text: bytes | None = None) -> FrozenObject:
    view = object.__new__(FrozenObject)
    object.__setattr__(view, "_data", data)
    object.__setattr__(view, "_text", text)
    return view


def _wrap_array(data: list[object]) -> FrozenArray:
    view = object.__new__(FrozenArray)
    object.__setattr__(view, "_data", data)
    return view


def adopt_object(data: Mapping[str, JsonValue]) -> FrozenObject:
    """Freeze a dict the caller has just built and hands over (the decoder): no copy.

    Anything else (a view, another mapping) is frozen by `freeze_object`.
    """
    if type(data) is dict:
        return _wrap_object(data)
    return freeze_object(data)


def adopt_canonical(data: dict[str, JsonValue], text: bytes) -> FrozenObject:
    """Freeze a dict handed over with its canonical JSON text, proved by its maker: no copy.

    `text` must be exactly the canonical JSON of `data`; the writer puts it in the line as
    it is (the recorder's snapshot walk proves it, issue 24).
    """
    return _wrap_object(data, text)  # type: ignore[arg-type] # JSON values are objects


def canonical_text(view: FrozenObject) -> bytes | None:
    """The canonical JSON text a view was adopted with, if any (`adopt_canonical`)."""
    return view._text


def adopt_array(data: Sequence[JsonValue]) -> FrozenArray:
    """Freeze a list the caller has just built and hands over (the decoder): no copy."""
    if type(data) is list:
        return _wrap_array(data)
    return freeze_array(data)


def _copied(value: object) -> object:
    """A deep copy of dicts and lists (frozen views inside too), walked iteratively.

    Members that are not JSON are kept as they are, for the record checks to name; a
    container met twice is copied once, so shared parts stay shared and a cycle ends. A
    frozen view met inside is copied as its data is, so no copy ever aliases a view's own.
    """
    root: list[object] = [value]
    copies: dict[int, object] = {}
    pending: list[tuple[list[object] | dict[str, object], int | str, object]] = [(root, 0, value)]
    while pending:
        parent, slot, item = pending.pop()
        if type(item) is FrozenObject or type(item) is FrozenArray:  # no ABC instance check
            item = item._data  # copied like plain data: a thawed copy must not reach a view's
        if isinstance(item, dict | list):
            known = copies.get(id(item))
            if known is None:
                if isinstance(item, dict):
                    members = dict(item)
                    pending.extend((members, key, member) for key, member in members.items())
                    known = members
                else:
                    elements = list(item)
                    pending.extend((elements, i, element) for i, element in enumerate(elements))
                    known = elements
                copies[id(item)] = known
            parent[slot] = known  # type: ignore[index] # the slot was taken from this very parent
    return root[0]


def freeze_object(value: Mapping[str, JsonValue] | FrozenObject) -> FrozenObject:
    """A frozen deep copy of a JSON object (a frozen one is returned as it is)."""
    if isinstance(value, FrozenObject):
        return value
    copied = _copied(value if type(value) is dict else dict(value))
    return _wrap_object(copied)  # type: ignore[arg-type] # a dict was copied into a dict


def freeze_array(value: Sequence[JsonValue] | FrozenArray) -> FrozenArray:
    """A frozen deep copy of a JSON array (a frozen one is returned as it is)."""
    if isinstance(value, FrozenArray):
        return value
    copied = _copied(value if type(value) is list else list(value))
    return _wrap_array(copied)  # type: ignore[arg-type] # a list was copied into a list


def freeze_json(value: JsonValue | FrozenJson) -> FrozenJson:
    """A frozen deep copy of any JSON value (scalars are already immutable)."""
    if isinstance(value, dict | FrozenObject):
        return freeze_object(value)
    if isinstance(value, list | FrozenArray):
        return freeze_array(value)
    return value


def shared_data(view: FrozenObject | FrozenArray) -> dict[str, JsonValue] | list[JsonValue]:
    """The view's own container, not a copy: for a serializer or a check that only reads it.

    Records' `to_wire` uses it (issue 24: the writer serializes without a thaw), and replay
    hands a result the lazy reader decoded for that one delivery to its caller with no copy.
    """
    data: dict[str, JsonValue] | list[JsonValue] = view._data  # type: ignore[assignment]
    return data


def thaw_json(value: FrozenJson) -> JsonValue:
    """A plain deep copy of a frozen value, which the caller may change."""
    if isinstance(value, FrozenObject | FrozenArray):
        return value.thaw()
    return value
