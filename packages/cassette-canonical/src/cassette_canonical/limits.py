"""How deep a value may nest before the C json decoder and encoder must not be used."""

from __future__ import annotations

from typing import Final

# The C decoder and encoder recurse on the C stack, guarded only by the interpreter's
# recursion limit; above this limit a deep document could overflow the C stack instead of
# raising RecursionError, so the iterative paths take over.
C_RECURSION_SAFE: Final = 5000
