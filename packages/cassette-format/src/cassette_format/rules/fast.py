"""FMT-9 rules 1-17 and FMT-10 rules 1-9 in one pass, derived from the record declarations.

`header_fits` and `interaction_fits` answer one question: does this value plainly satisfy
every rule? They are generated at import from `records.model`'s declarations (each
member's kind gives its condition, each record's `__checks__` its cross-member rules) as
straight-line Python, so they allocate nothing and run as fast as hand-written checks.
They are deliberately narrower than the ordered checks (integers must be ints, never
integral floats; any surprise answers False) and never build a message. False only means
"ask the ordered checks" (`rules.header`, `rules.interaction`), which find the reference's
first failure in its order or accept the unusual-but-valid record. The invariant
`interaction_fits(v, h) => check_interaction_in_order(v, line, h) accepts v` is
property-tested (tests/format/test_fast_schema.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from cassette_canonical import is_digest
from cassette_canonical.limits import MAX_SAFE_INTEGER

from cassette_format.records.declare import members, wire_fields
from cassette_format.records.model import CassetteHeader, CassetteInteraction, RequestMetadata
from cassette_format.rules.content_blocks import check_content_blocks
from cassette_format.text.created_at import valid_created_at

__all__ = ["fits_namespace", "fits_source", "header_fits", "interaction_fits", "metadata_fits"]


def _names_fit(value: object) -> bool:
    """An array of strings."""
    if type(value) is not list:
        return False
    for name in value:  # noqa: SIM110 - a plain loop is cheaper than all() over a generator
        if type(name) is not str:
            return False
    return True


def _blocks_fit(value: object) -> bool:
    """FMT-14 content blocks (the check allocates nothing when they are valid)."""
    return type(value) is list and check_content_blocks(value, "") is None


def fits_namespace() -> dict[str, Any]:
    """The names the kinds' `fits` conditions use (a fresh dict for generated code)."""
    return {
        "MAX_SAFE_INTEGER": MAX_SAFE_INTEGER,
        "INFINITY": math.inf,
        "is_digest": is_digest,
        "valid_created_at": valid_created_at,
        "names_fit": _names_fit,
        "blocks_fit": _blocks_fit,
    }


def _add(record_type: type[Any], namespace: dict[str, Any], sources: list[str]) -> None:
    """Generate `fits_<Record>` (and what it calls) into `namespace`."""
    name = f"fits_{record_type.__name__}"
    if name in namespace:
        return
    namespace[name] = None  # reserved: generated once however often it is reached
    declared = members(record_type)
    exact = not any(item.optional for item in declared)
    fields = f"FIELDS_{record_type.__name__}"
    namespace[fields] = wire_fields(record_type)
    context = "".join(f", {parameter}" for parameter in record_type.__context__)
    lines = [
        f"def {name}(v{context}):",
        f"    if type(v) is not dict or not v.keys() {'==' if exact else '<='} {fields}:",
        "        return False",
    ]
    for index, item in enumerate(declared):
        kind = item.kind
        for nested_type in kind.records:
            _add(nested_type, namespace, sources)
        if kind.discriminator:
            _add_union(kind.discriminator, kind.records, namespace, sources)
        constant = f"C_{record_type.__name__}_{index}"
        namespace[constant] = kind.value
        local = f"x{index}"
        condition = kind.fits.format(x=local, c=constant)
        if item.optional:
            lines += [
                f"    if {item.wire!r} in v:",
                f"        {local} = v[{item.wire!r}]",
                f"        if not {condition}:",
                "            return False",
            ]
        else:
            getter = f"v[{item.wire!r}]" if exact else f"v.get({item.wire!r})"
            lines += [f"    {local} = {getter}", f"    if not {condition}:", "        return False"]
    for check in record_type.__checks__:
        lines += [f"    if not ({check}):", "        return False"]
    lines.append("    return True")
    source = "\n".join(lines)
    sources.append(source)
    exec(compile(source, f"<fits {record_type.__name__}>", "exec"), namespace)


def _add_union(
    discriminator: str,
    variants: tuple[type[Any], ...],
    namespace: dict[str, Any],
    sources: list[str],
) -> None:
    name = "fits_" + "_".join(variant.__name__ for variant in variants)
    if name in namespace:
        return
    table: dict[object, Callable[[object], bool]] = {}
    for variant in variants:
        _add(variant, namespace, sources)
        (fixed,) = (i for i in members(variant) if i.wire == discriminator and i.fixed)
        table[fixed.kind.value] = namespace[f"fits_{variant.__name__}"]
    namespace[name + "_table"] = table
    source = "\n".join(
        [
            f"def {name}(v):",
            "    if type(v) is not dict:",
            "        return False",
            f"    d = v.get({discriminator!r})",
            "    if type(d) is not str:",
            "        return False",
            f"    fits = {name}_table.get(d)",
            "    return fits is not None and fits(v)",
        ]
    )
    sources.append(source)
    exec(compile(source, f"<fits {name}>", "exec"), namespace)


def _checker(record_type: type[Any]) -> tuple[Callable[..., bool], str]:
    namespace = fits_namespace()
    sources: list[str] = []
    _add(record_type, namespace, sources)
    check: Callable[..., bool] = namespace[f"fits_{record_type.__name__}"]
    return check, "\n\n".join(sources)


#: True when a value plainly satisfies FMT-9 rules 1-17 (False: ask the ordered rules).
header_fits: Callable[[object], bool]
header_fits, _header_source = _checker(CassetteHeader)
#: True when a value plainly satisfies FMT-10 rules 1-9 after the given previous hash.
interaction_fits: Callable[[object, str], bool]
interaction_fits, _interaction_source = _checker(CassetteInteraction)
#: True when a value plainly satisfies FMT-11's metadata view (the recorder's early check).
metadata_fits: Callable[[object], bool]
metadata_fits, _ = _checker(RequestMetadata)


def fits_source() -> str:
    """The generated source of both checks (for reading and for tests)."""
    return _header_source + "\n\n" + _interaction_source
