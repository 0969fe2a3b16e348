"""Terminal-safe text for the CLI (CLI-1, CLI-8): re-exported from cassette_canonical.display_text.

The escaping lives in cassette-canonical so the pytest plugin escapes cassette-derived strings
exactly as the CLI does, without depending on the CLI.
"""

from __future__ import annotations

from cassette_canonical.display_text import (
    CONTROL_CLASS,
    CONTROL_RANGES,
    display,
    join_surrogate_pairs,
    printable,
)

__all__ = ["CONTROL_CLASS", "CONTROL_RANGES", "display", "join_surrogate_pairs", "printable"]
