"""JSON documents as the reference prints them (CLI-9): from cassette_canonical.json_text.

The printer lives in cassette-canonical (JSON.stringify's exact text is JSON knowledge) so
the pytest plugin prints diagnostics exactly as the CLI does, without depending on the CLI.
"""

from __future__ import annotations

from cassette_canonical.json_text import json_document, json_string

__all__ = ["json_document", "json_string"]
