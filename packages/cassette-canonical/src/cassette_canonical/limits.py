"""Limits of JSON values: how deep one may nest for the C codecs, and the safe-integer bound."""

from __future__ import annotations

from typing import Final

# The C decoder and encoder recurse on the C stack, guarded only by the interpreter's
# recursion limit; above this limit a deep document could overflow the C stack instead of
# raising RecursionError, so the iterative paths take over.
C_RECURSION_SAFE: Final = 5000

#: JavaScript's Number.MAX_SAFE_INTEGER, 2^53 - 1: the largest integer n such that n and n + 1
#: are both exact doubles. The one definition of the bound for the whole workspace (FMT-7,
#: D-1); 2^53 itself, the last exact double of a run of integers, is `MAX_SAFE_INTEGER + 1`.
MAX_SAFE_INTEGER: Final = 2**53 - 1
