"""Shared hypothesis strategies for JSON values, as cassette-canonical defines them.

Import them as ``from support.strategies import json_values``. Every value drawn from
``json_values()`` has a canonical form and survives ``parse_json(canonical_json(x)) == x``:
no -0.0, NaN or infinities, ints a double holds exactly, and strings as JavaScript sees
them (surrogate code points only lone, never an adjacent high+low pair).
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any

from hypothesis import strategies as st

_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_LARGEST_SAFE = 2**53


def _join_pairs(s: str) -> str:
    """Combine adjacent surrogate code points into the astral character JavaScript sees."""
    return _PAIR.sub(
        lambda m: chr(0x10000 + ((ord(m.group()[0]) - 0xD800) << 10) + ord(m.group()[1]) - 0xDC00),
        s,
    )


def _drop_zero_sign(x: float) -> float:
    """Negative zero has no canonical form: turn it into +0.0."""
    return 0.0 if x == 0.0 else x


# Characters that stress canonical JSON: escapes, C0/C1 controls, U+2028/9, the
# U+E000..U+FFFF block (UTF-16 order differs from code-point order there), astral
# characters and lone surrogates.
_TRICKY_CHARS = st.sampled_from(
    ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x1f", "\x7f", "\x85",
     "\u2028", "\u2029", "é", "日", "\ue000", "\uff21", "\uffff", "😀", "\U00010000",
     "\U0010ffff", "\ud800", "\udbff", "\udc00", "\udfff"]
)  # fmt: skip


def json_strings(max_size: int = 12) -> st.SearchStrategy[str]:
    """Strings mixing ASCII, non-ASCII, astral characters, controls and lone surrogates."""
    chars = st.one_of(
        st.characters(codec=None, exclude_categories=()),
        _TRICKY_CHARS,
        st.characters(max_codepoint=0x7F),
    )
    return st.lists(chars, max_size=max_size).map("".join).map(_join_pairs)


def lossless_ints() -> st.SearchStrategy[int]:
    """Ints a double holds exactly: small ones, the 2**53 boundary and large powers of two."""
    return st.one_of(
        st.integers(min_value=-_LARGEST_SAFE, max_value=_LARGEST_SAFE),
        st.sampled_from([0, 1, -1, 2**53, -(2**53), 2**60, 10**21, 2**1023]),
        st.builds(lambda m, e: m * 2**e, st.integers(-(2**53), 2**53), st.integers(0, 900)),
    )


def unlossless_ints() -> st.SearchStrategy[int]:
    """Ints no double holds exactly (D-1 rejects them): odd numbers above 2**53, huge ints."""
    return st.one_of(
        st.integers(min_value=2**53 + 1, max_value=2**64).filter(lambda n: int(float(n)) != n),
        st.integers(min_value=2**1024, max_value=2**1100),
    ).flatmap(lambda n: st.sampled_from([n, -n]))


def double_bits() -> st.SearchStrategy[float]:
    """Finite doubles other than -0.0 drawn from uniformly random 64-bit patterns."""
    return (
        st.integers(min_value=0, max_value=2**64 - 1)
        .map(lambda bits: struct.unpack(">d", bits.to_bytes(8, "big"))[0])
        .filter(math.isfinite)
        .map(_drop_zero_sign)
    )


def finite_doubles() -> st.SearchStrategy[float]:
    """Finite doubles (no -0.0): random bit patterns, hypothesis floats and threshold cases."""
    return st.one_of(
        double_bits(),
        st.floats(allow_nan=False, allow_infinity=False).map(_drop_zero_sign),
        st.sampled_from([1e21, 1e-7, 1e-6, 1e20, 1e16, 1e-5, 0.1, 1.5, 1.0, 5e-324,
                         1.7976931348623157e308, 2.0**53, 2.0**53 + 2]),
    )  # fmt: skip


def json_scalars() -> st.SearchStrategy[Any]:
    """null, booleans, lossless ints, finite doubles and strings."""
    return st.one_of(st.none(), st.booleans(), lossless_ints(), finite_doubles(), json_strings())


def json_keys() -> st.SearchStrategy[str]:
    """Member names, biased towards ones whose UTF-16 and code-point orders differ."""
    return st.one_of(
        json_strings(max_size=4), st.sampled_from(["a", "b", "\uffff", "😀", "\ue000x"])
    )


def json_values(max_leaves: int = 30) -> st.SearchStrategy[Any]:
    """Any JSON value: nested lists and str-keyed dicts of ``json_scalars``."""
    return st.recursive(
        json_scalars(),
        lambda inner: st.one_of(
            st.lists(inner, max_size=5), st.dictionaries(json_keys(), inner, max_size=5)
        ),
        max_leaves=max_leaves,
    )


def json_objects(max_leaves: int = 30) -> st.SearchStrategy[dict[str, Any]]:
    """JSON objects (str-keyed dicts) at the top level."""
    return st.dictionaries(json_keys(), json_values(max_leaves), max_size=6)


def non_json_leaves() -> st.SearchStrategy[Any]:
    """Python values outside the JSON domain: tuples, sets, bytes, objects, bad numbers."""
    return st.one_of(
        st.tuples(st.integers()),
        st.frozensets(st.integers(), max_size=2),
        st.sets(st.integers(), max_size=2),
        st.binary(max_size=3),
        st.builds(object),
        st.complex_numbers(allow_nan=False, allow_infinity=False),
        st.sampled_from([float("nan"), float("inf"), float("-inf"), -0.0]),
        unlossless_ints(),
    )
