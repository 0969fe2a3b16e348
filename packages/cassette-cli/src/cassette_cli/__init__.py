"""cassette-cli: the `cassette` console script (filled in by its issue)."""

import sys

__all__ = ["console_main"]


def console_main() -> None:
    """Console entry point; the commands arrive with the CLI issue."""
    sys.stderr.write("cassette: not implemented yet\n")
    raise SystemExit(1)
