"""Command-line parsing with the reference's dispatch order and exact usage errors (CLI-2, CLI-4).

argparse cannot reproduce the reference (`--json` anywhere, `--help` anywhere, its own
messages), so the words are read by hand. Parsing is pure and total: it returns either the
command to run or a `UsageError` value. (A plain union rather than a `returns` Result: this
runs on every start-up, and `cassette verify` must not pay for importing `returns`.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, TypeAlias

__all__ = [
    "COLOR_MODES",
    "DIFF_FORMATS",
    "ColorMode",
    "Command",
    "DemoCommand",
    "DiffCommand",
    "DiffFormat",
    "InspectCommand",
    "ReportCommand",
    "ShowCommandHelp",
    "ShowUsage",
    "ShowVersion",
    "UsageError",
    "VerifyCommand",
    "parse_arguments",
]

ColorMode: TypeAlias = Literal["auto", "always", "never"]
COLOR_MODES: Final[tuple[ColorMode, ...]] = ("auto", "always", "never")
DiffFormat: TypeAlias = Literal["text", "json", "markdown"]
DIFF_FORMATS: Final[tuple[DiffFormat, ...]] = ("text", "json", "markdown")
_COMMANDS: Final = frozenset({"verify", "inspect", "diff", "demo", "report"})


@dataclass(frozen=True, slots=True)
class ShowVersion:
    """`cassette --version`."""


@dataclass(frozen=True, slots=True)
class ShowUsage:
    """Usage on stdout; exit 1 when no arguments were given at all, else 0."""

    exit_code: int


@dataclass(frozen=True, slots=True)
class ShowCommandHelp:
    """`cassette <command> --help`: that command's own help on stdout, exit 0."""

    command: str


@dataclass(frozen=True, slots=True)
class VerifyCommand:
    """`verify`: one path (the reference's output) or many paths, directories and globs."""

    paths: tuple[str, ...]
    json: bool
    jobs: int | None
    color: ColorMode


@dataclass(frozen=True, slots=True)
class InspectCommand:
    """`inspect <file>` with the reference's options plus `--tree`."""

    path: str
    json: bool
    show_calls: bool
    tree: bool
    color: ColorMode


@dataclass(frozen=True, slots=True)
class DiffCommand:
    """`diff <expected> <actual>`; paths are kept as typed, for the human report.

    `drift` adds the drift report (issue 25) to the text or JSON output; `markdown` prints
    the drift report as a Markdown table instead (`--format markdown`).
    """

    expected: str
    actual: str
    json: bool
    show_calls: bool
    drift: bool = False
    markdown: bool = False


@dataclass(frozen=True, slots=True)
class ReportCommand:
    """`report <cassette> [--against <old>] -o <report.html>`: the self-contained HTML report."""

    path: str
    against: str | None
    output: str


@dataclass(frozen=True, slots=True)
class DemoCommand:
    """`demo [--dir DIR]`: the record/replay tour on an embedded scenario."""

    directory: str | None
    color: ColorMode


@dataclass(frozen=True, slots=True)
class UsageError:
    """A usage mistake: the raw message (display() is applied when printed), exit 1."""

    message: str


Command: TypeAlias = (
    ShowVersion
    | ShowUsage
    | ShowCommandHelp
    | VerifyCommand
    | InspectCommand
    | DiffCommand
    | DemoCommand
    | ReportCommand
)


@dataclass(frozen=True, slots=True)
class _Words:
    """A command's words sorted into flags, option values and positionals."""

    flags: frozenset[str]
    values: tuple[tuple[str, str], ...]
    positionals: tuple[str, ...]

    def value(self, option: str) -> str | None:
        """The last value given for `option`, if any."""
        found = None
        for name, value in self.values:
            if name == option:
                found = value
        return found


#: Per command: flags it accepts, and options that take a value.
_FLAGS: Final[dict[str, frozenset[str]]] = {
    "verify": frozenset({"--json", "--show-calls"}),
    "inspect": frozenset({"--json", "--show-calls", "--tree"}),
    "diff": frozenset({"--json", "--show-calls", "--drift"}),
    "demo": frozenset(),
    "report": frozenset(),
}
_VALUED: Final[dict[str, frozenset[str]]] = {
    "verify": frozenset({"--jobs", "--color"}),
    "inspect": frozenset({"--color"}),
    "diff": frozenset({"--format"}),
    "demo": frozenset({"--dir", "--color"}),
    "report": frozenset({"--against", "--output", "-o"}),
}


def _sort_words(command: str, words: Sequence[str]) -> _Words | UsageError:
    flags: set[str] = set()
    values: list[tuple[str, str]] = []
    positionals: list[str] = []
    pending: str | None = None
    for word in words:
        if pending is not None:
            values.append((pending, word))
            pending = None
            continue
        if word in _FLAGS[command]:
            flags.add(word)
            continue
        name, equals, inline = word.partition("=")
        if name in _VALUED[command]:
            if equals:
                values.append((name, inline))
            else:
                pending = name
            continue
        if word.startswith("-"):
            return UsageError(f"Unknown option for {command}: {word}")
        positionals.append(word)
    if pending is not None:
        return UsageError(f"Option {pending} for {command} needs a value")
    return _Words(frozenset(flags), tuple(values), tuple(positionals))


def _color(words: _Words) -> ColorMode | UsageError:
    given = words.value("--color")
    if given is None:
        return "auto"
    for mode in COLOR_MODES:
        if given == mode:
            return mode
    return UsageError(f"--color must be auto, always or never, received {given}")


def _jobs(words: _Words) -> int | UsageError | None:
    given = words.value("--jobs")
    if given is None:
        return None
    if given.isascii() and given.isdigit() and int(given) >= 1:
        return int(given)
    return UsageError(f"--jobs must be a positive integer, received {given}")


def _count_error(command: str, expected: int, received: int) -> UsageError:
    noun = "cassette files" if expected == 2 else "cassette file"
    return UsageError(f"Expected {expected} {noun} for {command}, received {received}")


def _verify(words: _Words, color: ColorMode) -> Command | UsageError:
    if not words.positionals:
        return _count_error("verify", 1, 0)
    jobs = _jobs(words)
    if isinstance(jobs, UsageError):
        return jobs
    return VerifyCommand(words.positionals, "--json" in words.flags, jobs, color)


def _inspect(words: _Words, color: ColorMode) -> Command | UsageError:
    if len(words.positionals) != 1:
        return _count_error("inspect", 1, len(words.positionals))
    return InspectCommand(
        words.positionals[0],
        "--json" in words.flags,
        "--show-calls" in words.flags,
        "--tree" in words.flags,
        color,
    )


def _diff(words: _Words) -> Command | UsageError:
    if len(words.positionals) != 2:
        return _count_error("diff", 2, len(words.positionals))
    expected, actual = words.positionals
    given = words.value("--format")
    chosen = next((name for name in DIFF_FORMATS if name == given), None)
    if given is not None and chosen is None:
        return UsageError(f"--format must be text, json or markdown, received {given}")
    as_json = "--json" in words.flags or chosen == "json"
    if chosen == "markdown" and as_json:
        return UsageError("--format markdown cannot be combined with --json")
    return DiffCommand(
        expected,
        actual,
        as_json,
        "--show-calls" in words.flags,
        drift="--drift" in words.flags,
        markdown=chosen == "markdown",
    )


def _report(words: _Words) -> Command | UsageError:
    if len(words.positionals) != 1:
        return _count_error("report", 1, len(words.positionals))
    output = words.value("--output") or words.value("-o")
    if not output:
        return UsageError("report needs -o <report.html>")
    return ReportCommand(words.positionals[0], words.value("--against"), output)


def _demo(words: _Words, color: ColorMode) -> Command | UsageError:
    if words.positionals:
        return UsageError(f"Unexpected argument for demo: {words.positionals[0]}")
    return DemoCommand(words.value("--dir"), color)


def _command(command: str, words: _Words) -> Command | UsageError:
    if command == "diff":
        return _diff(words)
    if command == "report":
        return _report(words)
    color = _color(words)
    if isinstance(color, UsageError):
        return color
    if command == "verify":
        return _verify(words, color)
    if command == "inspect":
        return _inspect(words, color)
    return _demo(words, color)


def parse_arguments(argv: Sequence[str]) -> Command | UsageError:
    """Decide what to run, in the reference's order: version, usage, help, command (CLI-2).

    `--help` after a known command asks for that command's help (beyond CLI-2); anywhere
    else it prints the reference's usage.
    """
    if len(argv) == 1 and argv[0] == "--version":
        return ShowVersion()
    if not argv:
        return ShowUsage(exit_code=1)
    command = argv[0]
    if command in _COMMANDS and "--help" in argv:
        return ShowCommandHelp(command)
    if command in ("--help", "-h") or "--help" in argv:
        return ShowUsage(exit_code=0)
    if command not in _COMMANDS:
        return UsageError(f"Unknown command: {command}")
    words = _sort_words(command, argv[1:])
    if isinstance(words, UsageError):
        return words
    return _command(command, words)
