"""JSON documents as the reference prints them (CLI-9): re-exported from cassette_format.json_text.

The printer lives in cassette-format so the pytest plugin prints diagnostics exactly as the
CLI does, without depending on the CLI.
"""

from __future__ import annotations

from cassette_format.json_text import json_document, json_string

__all__ = ["json_document", "json_string"]
