"""The `cassette` command: dispatch to the commands and map outcomes to exit codes (CLI-11)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from cassette_cli.arguments import (
    Command,
    DiffCommand,
    InspectCommand,
    ReportCommand,
    ShowCommandHelp,
    ShowUsage,
    ShowVersion,
    UsageError,
    VerifyCommand,
    parse_arguments,
)
from cassette_cli.display import display
from cassette_cli.terminal import Output
from cassette_cli.usage import USAGE, package_version

__all__ = ["console_main", "main"]


def _verify(command: VerifyCommand, output: Output) -> int:
    from cassette_cli.cassette_paths import wants_many

    if wants_many(command.paths):
        from cassette_cli.verify_many import run_verify_many

        return run_verify_many(command, output)
    from cassette_cli.session_detect import is_session_log

    if is_session_log(command.paths[0]):
        from cassette_cli.session_commands import run_session_file

        return run_session_file(
            command.paths[0], as_json=command.json, show_calls=False, output=output
        )
    from cassette_cli.commands import run_verify_file

    return run_verify_file(command.paths[0], as_json=command.json, output=output)


def _run(command: Command, output: Output) -> int:
    if isinstance(command, ShowVersion):
        output.out(package_version())
        return 0
    if isinstance(command, ShowUsage):
        output.out(USAGE)
        return command.exit_code
    if isinstance(command, ShowCommandHelp):
        from cassette_cli.command_help import COMMAND_HELP

        output.out(COMMAND_HELP[command.command])
        return 0
    if isinstance(command, VerifyCommand):
        return _verify(command, output)
    if isinstance(command, InspectCommand):
        from cassette_cli.commands import run_inspect

        return run_inspect(command, output)
    if isinstance(command, DiffCommand):
        from cassette_cli.commands import run_diff

        return run_diff(command, output)
    if isinstance(command, ReportCommand):
        from cassette_cli.report_command import run_report

        return run_report(command, output)
    from cassette_cli.demo import run_demo

    return run_demo(command, output)


def main(
    argv: Sequence[str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Run `cassette` with `argv` (default: sys.argv[1:]) and return the exit code."""
    output = Output(stdout or sys.stdout, stderr or sys.stderr)
    command = parse_arguments(list(sys.argv[1:] if argv is None else argv))
    if isinstance(command, UsageError):
        output.err(f"{display(command.message)}\n\n{USAGE}")
        return 1
    return _run(command, output)


def _utf8(stream: TextIO) -> None:
    """Output is UTF-8 whatever the locale (CLI-1)."""
    reconfigure = getattr(stream, "reconfigure", None)
    if callable(reconfigure):
        reconfigure(encoding="utf-8", errors="replace")


def console_main() -> None:
    """Console-script entry point of `cassette`."""
    _utf8(sys.stdout)
    _utf8(sys.stderr)
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`cassette inspect x | head`): stop quietly.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 1
    raise SystemExit(code)
