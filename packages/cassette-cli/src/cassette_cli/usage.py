"""The usage text (CLI-3 with D-4: the command is `cassette`) and the package version."""

from __future__ import annotations

from typing import Final

__all__ = ["USAGE", "package_version"]

#: The reference's nine lines with the command renamed, then the options beyond it.
USAGE: Final = "\n".join(
    [
        "Usage:",
        "  cassette verify <file> [--json]",
        "  cassette inspect <file> [--json] [--show-calls]",
        "  cassette diff <expected> <actual> [--json] [--show-calls]",
        "  cassette --version",
        "",
        "verify checks the schema, exact DSH target, and the complete SHA-256 hash chain.",
        "inspect prints only metadata; it never prints recorded prompts or results.",
        "diff compares stable call identities and outcomes; exit code 2 means they differ.",
        "",
        "Beyond the reference:",
        "  cassette verify <file|dir|glob>... [--json] [--jobs N] [--color auto|always|never]",
        "  cassette inspect <file> --tree [--color auto|always|never]",
        "  cassette diff <expected> <actual> [--drift] [--format text|json|markdown]",
        "  cassette report <cassette> [--against <older>] -o <report.html>",
        "  cassette demo [--dir DIR]",
        "",
        "verify with several files, a directory (searched for *.cassette.jsonl) or a glob",
        "checks them in parallel and prints one line per file plus a total.",
        "diff --drift adds the drift report: what became of every call (added, removed,",
        "request changed, ...); --format markdown prints it as a Markdown table.",
        "report writes one self-contained HTML page: call tree, timeline, outcomes.",
        "demo records and replays a small multi-agent scenario offline, then verifies,",
        "inspects and diffs it.",
    ]
)


def package_version() -> str:
    """The installed cassette-cli version (read lazily: importlib.metadata is not free)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cassette-cli")
    except PackageNotFoundError:
        return "0+unknown"
