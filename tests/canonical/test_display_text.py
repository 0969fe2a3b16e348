"""The shared terminal-safe escaping (CLI-1, CLI-8, CLI-9) as cassette-canonical provides it.

The CLI and the pytest plugin both print cassette-derived strings through these functions.
"""

from __future__ import annotations

import json

from cassette_canonical.display_text import display, printable
from cassette_canonical.json_text import json_document, json_string

HOSTILE = "a\x1b[31mb\x1b]0;t\x07c\x9bd\x00e\u202ef\u2028g"


def test_display_escapes_every_control_and_format_character_as_u_braces() -> None:
    assert display(HOSTILE) == (
        "a\\u{001b}[31mb\\u{001b}]0;t\\u{0007}c\\u{009b}d\\u{0000}e\\u{202e}f\\u{2028}g"
    )
    assert display("plain café") == "plain café"


def test_printable_replaces_lone_surrogates_only() -> None:
    assert printable("x\ud800y") == "x\ufffdy"
    assert printable("\ud83d\ude00") == "\U0001f600"


def test_json_text_stays_valid_json_with_no_raw_control_left() -> None:
    text = json_document({"label": HOSTILE, "n": [1, 2.5]})
    assert json.loads(text) == {"label": HOSTILE, "n": [1, 2.5]}
    assert not any(ch in text for ch in "\x1b\x07\x9b\x00\u202e\u2028")
    assert json_string("\u2028") == '"\\u2028"'
