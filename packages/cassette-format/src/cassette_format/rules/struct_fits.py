"""FMT-9 and FMT-10's one-pass check in C: msgspec Structs derived from the record declarations.

The accelerator in front of `rules.fast`. `struct_fits(Record)` builds, from the record's
declaration (`records.model`), msgspec Structs that `msgspec.convert` checks a parsed
value against in C: a closed record forbids unknown members, an optional member may be
absent but never null, a union is tagged by its discriminator's constant, each kind is a
type with its bounds (`KINDS`; `block_structs` for content blocks). What msgspec cannot
say (digest and timestamp shapes, non-string constants, each record's `__checks__`, the
context such as the previous hash) is generated Python over the value, from the same
kinds' `fits` conditions. True means the value plainly satisfies every rule; False only
means "ask `rules.fast`", whose generated checks and then the ordered rules decide. The
invariant `struct fits => the ordered rules accept` is property-tested
(tests/format/test_fast_schema.py).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

import msgspec
from cassette_canonical.limits import MAX_SAFE_INTEGER
from msgspec import UNSET, Meta, UnsetType

from cassette_format.records.declare import (
    BLOCKS,
    COUNT,
    FLAG,
    MILLIS,
    NAMES,
    NON_EMPTY,
    OBJECT,
    POSITIVE,
    TEXT,
    Kind,
    Member,
    const,
    members,
    one_of,
)
from cassette_format.records.model import CassetteInteraction
from cassette_format.rules.block_structs import Block
from cassette_format.rules.fast import fits_namespace

__all__ = ["KINDS", "interaction_struct_fits", "struct_fits"]

#: The msgspec type of each leaf kind whose condition it states exactly (`rules.fast` has
#: the same conditions as Python). MILLIS' upper bound leaves out infinity, as `< INFINITY`.
KINDS: tuple[tuple[Kind, Any], ...] = (
    (TEXT, str),
    (NON_EMPTY, Annotated[str, Meta(min_length=1)]),
    (FLAG, bool),
    (POSITIVE, Annotated[int, Meta(ge=1, le=MAX_SAFE_INTEGER)]),
    (COUNT, Annotated[int, Meta(ge=0, le=MAX_SAFE_INTEGER)]),
    (MILLIS, Annotated[float, Meta(ge=0, le=sys.float_info.max)]),
    (NAMES, list[str]),
    (BLOCKS, list[Block]),
    (OBJECT, dict[str, Any]),
)

Check = Callable[..., bool]


def _leaf_type(kind: Kind) -> Any | None:
    """The msgspec type stating `kind` exactly, or None (then its Python condition runs)."""
    for known, struct_type in KINDS:
        if kind is known:
            return struct_type
    if isinstance(kind.value, tuple) and kind == one_of(*kind.value):
        return Literal[kind.value]
    if isinstance(kind.value, str) and kind == const(kind.value):
        return Literal[kind.value]
    return None


class _Builder:
    """Structs and the Python after-checks of one record type and those it holds."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = fits_namespace()
        self.structs: dict[tuple[type[Any], str], Any] = {}
        self.after: dict[type[Any], str | None] = {}
        self.sources: list[str] = []

    def struct(self, record_type: type[Any], tag: tuple[str, str] | None = None) -> Any:
        """The Struct of a record (tagged by its discriminator member when in a union)."""
        key = (record_type, "" if tag is None else tag[0])
        if key in self.structs:
            return self.structs[key]
        fields: list[tuple[str, Any] | tuple[str, Any, Any]] = []
        rename: dict[str, str] = {}
        for index, item in enumerate(members(record_type)):
            if tag is not None and item.wire == tag[0]:
                continue  # the tag states it
            name = f"m{index}"
            rename[name] = item.wire
            member_type = self._member_type(item)
            if item.optional:
                fields.append((name, Union[member_type, UnsetType], UNSET))  # noqa: UP007
            else:
                fields.append((name, member_type))
        options: dict[str, Any] = {}
        if tag is not None:
            options = {"tag_field": tag[0], "tag": tag[1]}
        made = msgspec.defstruct(
            f"{record_type.__name__}Struct",
            fields,
            kw_only=True,
            rename=rename,
            forbid_unknown_fields=True,
            gc=False,
            **options,
        )
        self.structs[key] = made
        return made

    def _member_type(self, item: Member) -> Any:
        kind = item.kind
        if kind.discriminator:
            variants = [
                self.struct(variant, (kind.discriminator, _discriminant(variant, kind)))
                for variant in kind.records
            ]
            return Union[tuple(variants)]  # noqa: UP007 - built at run time
        if kind.records:
            return self.struct(kind.records[0])
        if kind.parts:
            return self._open_struct(kind)
        leaf = _leaf_type(kind)
        return Any if leaf is None else leaf

    def _open_struct(self, kind: Kind) -> Any:
        """An open object: the parts it must hold, other members ignored (kept by the value)."""
        parts = enumerate(kind.parts)
        fields = [(f"p{index}", self._part_type(part)) for index, (_, part) in parts]
        rename = {f"p{index}": wire for index, (wire, _) in enumerate(kind.parts)}
        return msgspec.defstruct("OpenObjectStruct", fields, rename=rename, gc=False)

    def _part_type(self, kind: Kind) -> Any:
        leaf = _leaf_type(kind)
        if leaf is None:
            raise TypeError(f"an open object's part of kind {kind.name!r} has no Struct type")
        return leaf

    def after_name(self, record_type: type[Any]) -> str | None:
        """Generate the record's Python after-check; its name, or None when it needs none."""
        if record_type in self.after:
            return self.after[record_type]
        self.after[record_type] = None  # reserved while generating (records do not recurse)
        name = f"after_{record_type.__name__}"
        context = "".join(f", {parameter}" for parameter in record_type.__context__)
        lines = [f"def {name}(v{context}):"]
        for index, item in enumerate(members(record_type)):
            lines += self._member_lines(record_type, index, item)
        for check in record_type.__checks__:
            lines += [f"    if not ({check}):", "        return False"]
        if len(lines) == 1:
            return None
        lines.append("    return True")
        source = "\n".join(lines)
        self.sources.append(source)
        exec(compile(source, f"<struct after {record_type.__name__}>", "exec"), self.namespace)
        self.after[record_type] = name
        return name

    def _member_lines(self, record_type: type[Any], index: int, item: Member) -> list[str]:
        kind = item.kind
        local = f"x{index}"
        if kind.discriminator:
            table = self._union_table(kind)
            if table is None:
                return []
            condition = f"{table}.get({local}[{kind.discriminator!r}], _passes)({local})"
        elif kind.records:
            nested = self.after_name(kind.records[0])
            if nested is None:
                return []
            condition = f"{nested}({local})"
        elif kind.parts or _leaf_type(kind) is not None:
            return []
        else:
            constant = f"C_{record_type.__name__}_{index}"
            self.namespace[constant] = kind.value
            condition = kind.fits.format(x=local, c=constant)
        body = [f"    if not {condition}:", "        return False"]
        if item.optional:
            return [f"    if {item.wire!r} in v:", f"        {local} = v[{item.wire!r}]"] + [
                "    " + line for line in body
            ]
        return [f"    {local} = v[{item.wire!r}]", *body]

    def _union_table(self, kind: Kind) -> str | None:
        """The name of a table from discriminator to variant after-check (None: none needs one)."""
        table: dict[object, Check] = {}
        for variant in kind.records:
            name = self.after_name(variant)
            if name is not None:
                table[_discriminant(variant, kind)] = self.namespace[name]
        if not table:
            return None
        table_name = "table_" + "_".join(variant.__name__ for variant in kind.records)
        self.namespace[table_name] = table
        self.namespace["_passes"] = _passes
        return table_name


def _passes(_: object) -> bool:
    """A union variant with nothing left to check."""
    return True


def _discriminant(variant: type[Any], kind: Kind) -> str:
    """The string constant a union variant holds in its discriminator member."""
    for item in members(variant):
        if item.wire == kind.discriminator and item.fixed and isinstance(item.kind.value, str):
            return item.kind.value
    raise TypeError(f"{variant.__name__} has no fixed string member {kind.discriminator!r}")


def struct_fits(record_type: type[Any]) -> Check:
    """The C-accelerated one-pass check of a record type: `(value, *context) -> bool`."""
    builder = _Builder()
    struct_type = builder.struct(record_type)
    after_name = builder.after_name(record_type)
    after: Check | None = None if after_name is None else builder.namespace[after_name]
    convert, refused = msgspec.convert, (msgspec.ValidationError, RecursionError)

    def fits(value: object, *context: object) -> bool:
        """Whether `value` plainly satisfies every rule of the record (False: ask Python)."""
        try:
            convert(value, struct_type)
        except refused:
            return False
        return after is None or after(value, *context)

    return fits


#: True when a parsed value plainly satisfies FMT-10 rules 1-9 after the given previous hash.
interaction_struct_fits: Callable[[object, str], bool] = struct_fits(CassetteInteraction)
