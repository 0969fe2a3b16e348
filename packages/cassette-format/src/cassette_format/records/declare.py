"""How a record is declared once, and what is derived from it: fields, `to_json`, the decoder.

Each on-disk record type is a frozen slotted dataclass whose fields are `member(wire, kind,
rule)`: the attribute, its camelCase wire name, its `Kind` (what JSON it holds and how it
is checked, decoded and written), optional or not (`default=None`: absent on disk, never
null) and the requirement id. The fields are declared in on-disk order, so `to_json` writes
members in the order the reference does. From the declaration come the closed field sets
(`wire_fields`), the record's `to_json` and payload freezing (generated when the class is
made), the decoder (`decoder`, generated code) and, in `rules.fast`, the one-pass check.

Derived functions are built as Python source at import time (`compile`), so they run as
fast as hand-written ones: no per-member loop, no reflection on the hot path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, ClassVar, Final, TypeVar, dataclass_transform

from cassette_format.records.frozen_json import (
    adopt_array,
    adopt_object,
    freeze_json,
    shared_data,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "BLOCKS",
    "COUNT",
    "DIGEST",
    "FLAG",
    "MILLIS",
    "NAMES",
    "NON_EMPTY",
    "OBJECT",
    "POSITIVE",
    "TEXT",
    "TIMESTAMP",
    "Declared",
    "Kind",
    "Member",
    "compiled",
    "const",
    "decoder",
    "fixed",
    "member",
    "members",
    "nested",
    "one_of",
    "open_object",
    "record",
    "union",
    "wire_fields",
    "wires",
]

_Record = TypeVar("_Record")
#: The one metadata key of a declared field: (wire name, kind, requirement id).
_DECLARED: Final = "cassette_format.member"


@dataclass(frozen=True, slots=True)
class Kind:
    """What JSON a member holds: code templates over `{x}` (a local name) for each job.

    `fits` is the one-pass check's condition (names it uses come from `rules.fast`),
    `decode` the attribute built from a checked value, `encode` the JSON written from the
    attribute, `share` the same JSON for `to_wire` (payload containers shared, not copied;
    empty: as `encode`). `value` is a constant the templates name as `{c}`; `records` the
    record types a nested kind checks, decodes and writes through theirs.
    """

    name: str
    fits: str
    decode: str = "{x}"
    encode: str = "{x}"
    value: object = None
    records: tuple[type[Any], ...] = ()
    discriminator: str = ""
    parts: tuple[tuple[str, Kind], ...] = ()
    share: str = ""


TEXT: Final = Kind("string", "type({x}) is str")
NON_EMPTY: Final = Kind("non-empty string", "(type({x}) is str and {x} != '')")
FLAG: Final = Kind("boolean", "type({x}) is bool")
DIGEST: Final = Kind("digest", "is_digest({x})")
POSITIVE: Final = Kind(
    "positive safe integer",
    "(type({x}) is int and 1 <= {x} <= MAX_SAFE_INTEGER)",
    "({x} if type({x}) is int else int({x}))",
)
COUNT: Final = Kind(
    "non-negative safe integer",
    "(type({x}) is int and 0 <= {x} <= MAX_SAFE_INTEGER)",
    "({x} if type({x}) is int else int({x}))",
)
MILLIS: Final = Kind(
    "non-negative finite number",
    "((type({x}) is float and 0 <= {x} < INFINITY) or (type({x}) is int and {x} >= 0))",
)
NAMES: Final = Kind("array of strings", "names_fit({x})", "tuple({x})", "list({x})")
BLOCKS: Final = Kind(
    "content blocks", "blocks_fit({x})", "adopt_array({x})", "{x}.thaw()", share="SHARED({x})"
)
OBJECT: Final = Kind(
    "object", "type({x}) is dict", "adopt_object({x})", "{x}.thaw()", share="SHARED({x})"
)


TIMESTAMP: Final = Kind("RFC 3339 timestamp", "(type({x}) is str and valid_created_at({x}))")


def one_of(*values: str) -> Kind:
    """One of the given strings (compared with `==`: an unhashable value is simply not one)."""
    return Kind("one of " + ", ".join(values), "({x} in {c})", value=tuple(values))


def const(value: JsonValue) -> Kind:
    """Exactly `value` (a fixed member: written always, never an `__init__` argument)."""
    same_type = f"type({{x}}) is {type(value).__name__}"
    encode = "dict({c})" if isinstance(value, dict) else "{c}"
    return Kind(f"exactly {value!r}", f"({same_type} and {{x}} == {{c}})", "{c}", encode, value)


def nested(record_type: type[Any]) -> Kind:
    """A nested record, checked, decoded and written by its own declaration."""
    name = record_type.__name__
    return Kind(
        name,
        f"fits_{name}({{x}})",
        f"decode_{name}({{x}})",
        "{x}.to_json()",
        None,
        (record_type,),
        share="{x}.to_wire()",
    )


def union(discriminator: str, *variants: type[Any]) -> Kind:
    """One of several records, told apart by the constant of their member `discriminator`."""
    names = "_".join(variant.__name__ for variant in variants)
    return Kind(
        " | ".join(variant.__name__ for variant in variants),
        f"fits_{names}({{x}})",
        f"decode_{names}({{x}})",
        "{x}.to_json()",
        None,
        variants,
        discriminator,
        share="{x}.to_wire()",
    )


def open_object(**parts: Kind) -> Kind:
    """An open object (extra members kept) that must hold `parts` (wire name: kind)."""
    items = tuple(parts.items())
    checks = " and ".join(kind.fits.replace("{x}", f"{{x}}.get({wire!r})") for wire, kind in items)
    return Kind(
        "object",
        f"(type({{x}}) is dict and {checks})",
        "adopt_object({x})",
        "{x}.thaw()",
        None,
        (),
        "",
        items,
        "SHARED({x})",
    )


@dataclass(frozen=True, slots=True)
class Member:
    """One declared member: attribute, wire name, kind, optional or not, requirement id."""

    attribute: str
    wire: str
    kind: Kind
    optional: bool
    fixed: bool
    rule: str


def member(
    wire: str,
    kind: Kind,
    rule: str,
    *,
    default: Any = MISSING,
    init: bool = True,
    kw_only: bool = False,
) -> Any:
    """Declare a record field: its wire name, kind and requirement id (`default=None`: optional)."""
    metadata = {_DECLARED: (wire, kind, rule)}
    return field(default=default, init=init, kw_only=kw_only, metadata=metadata)


class Declared:
    """A declared record: `to_json` is generated from its members (`record`)."""

    __slots__ = ()

    #: Extra one-pass conditions over the record's JSON `v` (cross-member rules).
    __checks__: ClassVar[tuple[str, ...]] = ()
    #: Names the one-pass check takes besides the value (e.g. the previous record's hash).
    __context__: ClassVar[tuple[str, ...]] = ()

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object: present members only, in on-disk order, as fresh plain data."""
        raise NotImplementedError  # pragma: no cover - replaced by `record`

    def to_wire(self) -> dict[str, JsonValue]:
        """`to_json` sharing the frozen payloads' own containers: only to serialize or check.

        Nothing is copied (issue 24: the writer serializes each record once); whoever gets
        it must not change it, nor hand it on.
        """
        raise NotImplementedError  # pragma: no cover - replaced by `record`


def members(record_type: type[Any]) -> tuple[Member, ...]:
    """The declared members of a record type, in on-disk order."""
    declared: tuple[Member, ...] = record_type.__dict__["__members__"]
    return declared


def wire_fields(record_type: type[Any]) -> frozenset[str]:
    """The closed set of wire names a record's object may hold (FMT-6)."""
    return frozenset(item.wire for item in members(record_type))


def wires(record_type: type[Any]) -> Any:
    """The wire names of a record type by attribute: `wires(Timing).duration_ms` is the name."""
    return SimpleNamespace(**{item.attribute: item.wire for item in members(record_type)})


def fixed(record_type: type[Any]) -> Any:
    """The constants of a record type's fixed members by attribute: `fixed(ResultOutcome).kind`."""
    return SimpleNamespace(
        **{item.attribute: item.kind.value for item in members(record_type) if item.fixed}
    )


def _members_of(record_type: type[Any]) -> tuple[Member, ...]:
    out = []
    for item in dataclasses.fields(record_type):
        wire, kind, rule = item.metadata[_DECLARED]
        out.append(
            Member(
                attribute=item.name,
                wire=wire,
                kind=kind,
                optional=item.default is None,
                fixed=not item.init,
                rule=rule,
            )
        )
    return tuple(out)


def compiled(source: str, namespace: dict[str, Any], name: str) -> Callable[..., Any]:
    """The function `name` defined by generated `source` in `namespace`."""
    exec(compile(source, f"<declared {name}>", "exec"), namespace)
    function: Callable[..., Any] = namespace[name]
    return function


def _constant_name(kind: Kind, index: int, namespace: dict[str, Any]) -> str:
    name = f"C{index}"
    namespace[name] = kind.value
    return name


def _to_json_source(
    declared: tuple[Member, ...], namespace: dict[str, Any], name: str = "to_json"
) -> str:
    lines = [f"def {name}(self):", "    out = {}"]
    for index, item in enumerate(declared):
        constant = _constant_name(item.kind, index, namespace)
        template = item.kind.share if name == "to_wire" and item.kind.share else item.kind.encode
        value = template.format(x="x", c=constant)
        if item.fixed:
            lines.append(f"    out[{item.wire!r}] = {value}")
            continue
        lines.append(f"    x = self.{item.attribute}")
        if item.optional:
            lines.append(f"    if x is not None: out[{item.wire!r}] = {value}")
        else:
            lines.append(f"    out[{item.wire!r}] = {value}")
    lines.append("    return out")
    return "\n".join(lines)


def _post_init_source(payloads: tuple[str, ...]) -> str:
    lines = ["def __post_init__(self):"]
    for attribute in payloads:
        lines.append(f"    x = self.{attribute}")
        lines.append(f"    if isinstance(x, (dict, list)): SET(self, {attribute!r}, FREEZE(x))")
    return "\n".join(lines)


def _is_payload(kind: Kind) -> bool:
    """Whether a kind holds caller JSON that a constructor freezes (FrozenArray/FrozenObject)."""
    return kind in (BLOCKS, OBJECT) or bool(kind.parts)


@dataclass_transform(frozen_default=True, field_specifiers=(member,))
def record(record_type: type[_Record]) -> type[_Record]:
    """Make a declared record: frozen slotted dataclass, `to_json`, payload freezing.

    Payload members (content blocks, open objects) given as plain dicts/lists are frozen
    copies (`freeze_json`); decoded ones arrive already frozen and are kept as they are.
    """
    payloads = tuple(
        name
        for name, value in vars(record_type).items()
        if isinstance(value, dataclasses.Field) and _is_payload(value.metadata[_DECLARED][1])
    )
    namespace: dict[str, Any] = {
        "SET": object.__setattr__,
        "FREEZE": freeze_json,
        "SHARED": shared_data,
    }
    if payloads:
        post_init = compiled(_post_init_source(payloads), namespace, "__post_init__")
        setattr(record_type, "__post_init__", post_init)  # noqa: B010 - before dataclass() reads it
    made = dataclass(frozen=True, slots=True)(record_type)
    declared = _members_of(made)
    made.__members__ = declared  # type: ignore[attr-defined]
    made.to_json = _first_to_json(made, declared, namespace)  # type: ignore[attr-defined]
    made.to_wire = _first_to_json(made, declared, namespace, "to_wire")  # type: ignore[attr-defined]
    return made


def _first_to_json(
    made: type[Any], declared: tuple[Member, ...], namespace: dict[str, Any], name: str = "to_json"
) -> Callable[[Any], dict[str, JsonValue]]:
    """`to_json` (or `to_wire`) that generates the record's own on first use.

    `verify` never writes JSON, so it never pays for generating it.
    """
    doc = getattr(Declared, name).__doc__

    def to_json(self: Any) -> dict[str, JsonValue]:
        generated = compiled(_to_json_source(declared, namespace, name), namespace, name)
        generated.__doc__ = doc
        setattr(made, name, generated)
        result: dict[str, JsonValue] = generated(self)
        return result

    to_json.__doc__ = doc
    return to_json


def decoder(record_type: type[Any]) -> Callable[[Mapping[str, Any]], Any]:
    """The generated decoder of a checked record's JSON (nested records decoded in place)."""
    namespace: dict[str, Any] = {
        "adopt_array": adopt_array,
        "adopt_object": adopt_object,
    }
    _add_decoder(record_type, namespace)
    function: Callable[[Mapping[str, Any]], Any] = namespace[f"decode_{record_type.__name__}"]
    return function


def _add_decoder(record_type: type[Any], namespace: dict[str, Any]) -> None:
    name = f"decode_{record_type.__name__}"
    if name in namespace:
        return
    namespace[name] = None  # reserved: a record reached twice is generated once
    namespace[record_type.__name__] = record_type
    lines = [f"def {name}(v):"]
    arguments = []
    for index, item in enumerate(members(record_type)):
        kind = item.kind
        for nested_type in kind.records:
            _add_decoder(nested_type, namespace)
        if kind.discriminator:
            _add_union_decoder(kind, namespace)
        if item.fixed:
            continue
        local = f"a{index}"
        constant = _constant_name(kind, index, namespace)
        value = kind.decode.format(x=local, c=constant)
        if item.optional:
            lines.append(f"    {local} = v.get({item.wire!r})")
            value = f"(None if {local} is None else {value})"
        else:
            lines.append(f"    {local} = v[{item.wire!r}]")
        arguments.append(f"{item.attribute}={value}")
    lines.append(f"    return {record_type.__name__}({', '.join(arguments)})")
    compiled("\n".join(lines), namespace, name)


def _add_union_decoder(kind: Kind, namespace: dict[str, Any]) -> None:
    name = "decode_" + "_".join(variant.__name__ for variant in kind.records)
    if name in namespace:
        return
    table = {
        _discriminant(variant, kind.discriminator): namespace[f"decode_{variant.__name__}"]
        for variant in kind.records
    }
    namespace[name + "_table"] = table
    compiled(
        f"def {name}(v):\n    return {name}_table[v[{kind.discriminator!r}]](v)",
        namespace,
        name,
    )


def _discriminant(variant: type[Any], wire: str) -> object:
    """The constant a union variant holds in its discriminator member."""
    for item in members(variant):
        if item.wire == wire and item.fixed:
            return item.kind.value
    raise TypeError(f"{variant.__name__} has no fixed member {wire!r}")  # pragma: no cover
