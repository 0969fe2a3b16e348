"""Per-command help: `cassette <command> --help` (beyond CLI-2, which prints the usage).

The reference prints the global usage for `--help` anywhere (CLI-2). A user who types
`cassette verify --help` wants verify's own options, so a known command followed by `--help`
prints that command's text here; `cassette --help`, `-h` and an unknown command keep the
reference's usage bytes. Each text says what the command does, every option, the exit codes
and one example.
"""

from __future__ import annotations

from typing import Final

__all__ = ["COMMAND_HELP"]

_VERIFY: Final = """\
Usage:
  cassette verify <file> [--json]
  cassette verify <file|dir|glob>... [--json] [--jobs N] [--color auto|always|never]

Checks the closed schema, the exact DSH target and the complete SHA-256 hash chain.
One plain file prints the reference's one line; several files, a directory (searched for
*.cassette.jsonl) or a glob are checked in parallel, one line per file plus a total.
Session logs (model-call recordings) are recognised by their header and checked too.
Partial recordings left beside a cassette are named on stderr with the command that
removes them.

Options:
  --json                      print the summary document instead of the OK line
  --jobs N                    worker processes for many files (default: the CPUs)
  --color auto|always|never   colour the per-file lines (default: auto, a terminal only)

Exit codes: 0 every file verified; 1 a file failed, could not be read, or a usage error.
Example: cassette verify tests/cassettes/"""

_INSPECT: Final = """\
Usage:
  cassette inspect <file> [--json] [--show-calls] [--tree] [--color auto|always|never]

Prints a cassette's metadata: id, providers, counts of outcomes, ambiguous groups and
redacted results. It never prints recorded prompts or results. A session log or a folder
of session logs is described the same way.

Options:
  --show-calls                one line per interaction: sequence, call key, outcome, duration
  --tree                      draw the call topology (who started whom) below the summary
  --json                      print the summary document (with calls when --show-calls)
  --color auto|always|never   colour the tree (default: auto, a terminal only)

Exit codes: 0 printed; 1 unreadable or invalid file, or a usage error.
Example: cassette inspect tests/cassettes/test_flow/test_plan.cassette.jsonl --tree"""

_DIFF: Final = """\
Usage:
  cassette diff <expected> <actual> [--json] [--show-calls] [--drift]
  cassette diff <expected> <actual> --format text|json|markdown

Compares two cassettes by stable call identity (parent path, parent context, request,
occurrence), never by completion order: calls added, removed, with a changed outcome or
boundary, policy changes; timing changes are informational.

Options:
  --show-calls        one line per changed call
  --json              print the diff document (same as --format json)
  --drift             then the drift report: what became of every call (unchanged, added,
                      removed, request changed and which members, parent context changed,
                      outcome changed, boundary changed); with --json, its own document
  --format markdown   the drift report as a Markdown table (pull requests, step summaries)

Exit codes: 0 equivalent; 2 they differ or are not comparable; 1 unreadable or invalid
file, or a usage error.
Example: cassette diff committed.cassette.jsonl rerecorded.cassette.jsonl --show-calls"""

_DEMO: Final = """\
Usage:
  cassette demo [--dir DIR] [--color auto|always|never]

Records a small multi-agent run (three concurrent children, one nested, one failing),
replays it offline with the siblings started in reverse, then verifies, inspects and
diffs the cassette. No network and no API key.

Options:
  --dir DIR                   keep the cassettes in DIR (default: a temporary folder)
  --color auto|always|never   colour the output (default: auto, a terminal only)

Exit codes: 0 the tour ran; 1 a step failed, or a usage error.
Example: cassette demo --dir demo"""

_REPORT: Final = """\
Usage:
  cassette report <cassette> [--against <older>] -o <report.html>

Writes one self-contained HTML page (no network, no external asset): the call tree with a
timeline of each call's start and duration, outcome kinds, stop-reason categories and
redaction counts. Metadata only: never a prompt, result or error body.

Options:
  -o, --output FILE   where to write the page (required)
  --against OLDER     colour every call by its drift against an older cassette

Exit codes: 0 written; 1 unreadable or invalid cassette, unwritable page, or a usage error.
Example: cassette report flow.cassette.jsonl --against main.cassette.jsonl -o report.html"""

#: The help text of each command, printed by `cassette <command> --help` (exit 0).
COMMAND_HELP: Final[dict[str, str]] = {
    "verify": _VERIFY,
    "inspect": _INSPECT,
    "diff": _DIFF,
    "demo": _DEMO,
    "report": _REPORT,
}
