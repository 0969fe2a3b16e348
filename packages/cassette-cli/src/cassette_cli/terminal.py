"""Where output goes: UTF-8 lines, and colour only where a person is looking (CLI-1)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Final, TextIO

from cassette_cli.arguments import ColorMode
from cassette_cli.display import printable

__all__ = ["Output", "Palette", "is_terminal", "palette_for"]

_STYLES: Final = {
    "good": "\x1b[32m",
    "warn": "\x1b[33m",
    "bad": "\x1b[31m",
    "dim": "\x1b[2m",
    "bold": "\x1b[1m",
}
_RESET: Final = "\x1b[0m"


def is_terminal(stream: TextIO) -> bool:
    """True when the stream is an interactive terminal (never for pipes, files or buffers)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


@dataclass(frozen=True, slots=True)
class Palette:
    """ANSI styling that is a no-op when colour is off."""

    enabled: bool

    def paint(self, text: str, style: str) -> str:
        """`text` in the named style (good, warn, bad, dim, bold), or unchanged."""
        if not self.enabled or not text:
            return text
        return f"{_STYLES[style]}{text}{_RESET}"


def palette_for(mode: ColorMode, stream: TextIO) -> Palette:
    """`always` forces colour; `auto` colours a terminal unless NO_COLOR or TERM=dumb."""
    if mode == "never":
        return Palette(enabled=False)
    if mode == "always":
        return Palette(enabled=True)
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return Palette(enabled=False)
    return Palette(enabled=is_terminal(stream))


@dataclass(frozen=True, slots=True)
class Output:
    """The two streams a command writes: each message is one line ending in `\\n`."""

    stdout: TextIO
    stderr: TextIO

    def out(self, message: str) -> None:
        """Write one message to stdout (lone surrogates become U+FFFD)."""
        self.stdout.write(printable(message) + "\n")

    def err(self, message: str) -> None:
        """Write one message to stderr (lone surrogates become U+FFFD)."""
        self.stderr.write(printable(message) + "\n")
