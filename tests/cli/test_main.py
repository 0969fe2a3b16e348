"""Dispatch, usage errors and exit codes of `cassette` (CLI-2, CLI-3, CLI-4, CLI-11, D-4)."""

from __future__ import annotations

import io
from importlib.metadata import version

import pytest
from cassette_cli import main
from cassette_cli.usage import USAGE
from support.paths import INTEROP

VALID = str(INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl")


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def test_version_prints_the_package_version() -> None:  # CLI-2, D-4
    assert run("--version") == (0, version("cassette-cli") + "\n", "")


def test_no_arguments_prints_usage_and_fails() -> None:  # CLI-2, CLI-11
    assert run() == (1, USAGE + "\n", "")


@pytest.mark.parametrize(
    "args",
    [("--help",), ("-h",), ("--help", "verify"), ("nope", "--help"), ("-x", "--help")],
)
def test_help_prints_usage_and_succeeds(args: tuple[str, ...]) -> None:  # CLI-2
    assert run(*args) == (0, USAGE + "\n", "")


@pytest.mark.parametrize(
    ("args", "command"),
    [
        (("verify", "--help"), "verify"),
        (("verify", VALID, "--json", "--help"), "verify"),
        (("inspect", "--help"), "inspect"),
        (("diff", "a", "--help"), "diff"),
        (("demo", "--help"), "demo"),
        (("report", "--help"), "report"),
    ],
)
def test_command_help_prints_that_commands_own_help(  # beyond CLI-2 (issue 27)
    args: tuple[str, ...], command: str
) -> None:
    code, out, err = run(*args)
    assert (code, err) == (0, "")
    assert out != USAGE + "\n"
    lines = out.splitlines()
    assert lines[0] == "Usage:"
    assert lines[1].startswith(f"  cassette {command} ")
    # Every option the command accepts is explained, and no other command's usage appears.
    accepted = {
        "verify": ("--json", "--jobs", "--color"),
        "inspect": ("--json", "--show-calls", "--tree", "--color"),
        "diff": ("--json", "--show-calls", "--drift", "--format"),
        "demo": ("--dir", "--color"),
        "report": ("-o", "--against"),
    }[command]
    assert all(f"  {option}" in out for option in accepted)
    others = {"verify", "inspect", "diff", "demo", "report"} - {command}
    assert not any(f"cassette {other} " in out for other in others)
    assert "Exit codes:" in out
    assert "Example: cassette " + command in out


def test_usage_names_cassette_and_keeps_the_reference_lines() -> None:  # CLI-3, D-4
    lines = USAGE.split("\n")
    assert lines[:9] == [
        "Usage:",
        "  cassette verify <file> [--json]",
        "  cassette inspect <file> [--json] [--show-calls]",
        "  cassette diff <expected> <actual> [--json] [--show-calls]",
        "  cassette --version",
        "",
        "verify checks the schema, exact DSH target, and the complete SHA-256 hash chain.",
        "inspect prints only metadata; it never prints recorded prompts or results.",
        "diff compares stable call identities and outcomes; exit code 2 means they differ.",
    ]
    assert "dsh-cassette" not in USAGE


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("frobnicate",), "Unknown command: frobnicate"),
        (("-x",), "Unknown command: -x"),
        (("--version", "verify"), "Unknown command: --version"),
        (("bad\x1b[31m",), "Unknown command: bad\\u{001b}[31m"),
        (("verify", VALID, "-"), "Unknown option for verify: -"),
        (("verify", "--tree", VALID), "Unknown option for verify: --tree"),
        (("inspect", VALID, "--jobs", "2"), "Unknown option for inspect: --jobs"),
        (("diff", "a", "b", "--color=always"), "Unknown option for diff: --color=always"),
        (("verify", "--version"), "Unknown option for verify: --version"),
        (("verify",), "Expected 1 cassette file for verify, received 0"),
        (("inspect",), "Expected 1 cassette file for inspect, received 0"),
        (("inspect", "a", "b"), "Expected 1 cassette file for inspect, received 2"),
        (("diff", "a"), "Expected 2 cassette files for diff, received 1"),
        (("diff", "a", "b", "c"), "Expected 2 cassette files for diff, received 3"),
        (("verify", VALID, "--jobs", "0"), "--jobs must be a positive integer, received 0"),
        (("verify", VALID, "--jobs"), "Option --jobs for verify needs a value"),
        (
            ("verify", VALID, "--color", "red"),
            "--color must be auto, always or never, received red",
        ),
    ],
)
def test_usage_errors_print_message_blank_line_usage(
    args: tuple[str, ...], message: str
) -> None:  # CLI-4, CLI-8, CLI-11
    assert run(*args) == (1, "", f"{message}\n\n{USAGE}\n")


def test_flags_may_appear_anywhere_and_repeat() -> None:  # CLI-4
    code, stdout, _ = run("inspect", "--show-calls", "--json", VALID, "--json", "--show-calls")
    assert code == 0
    assert '"calls": [' in stdout


def test_verify_ignores_show_calls() -> None:  # CLI-4, CLI-5
    code, stdout, _ = run("verify", VALID, "--json", "--show-calls")
    assert code == 0
    assert '"calls"' not in stdout


def test_unreadable_file_is_one_message_line() -> None:  # FMT-18, CLI-11
    code, stdout, stderr = run("verify", "missing.cassette.jsonl")
    assert (code, stdout) == (1, "")
    assert stderr.startswith('cannot read cassette "/')
    assert stderr.endswith('missing.cassette.jsonl"\n')
    assert stderr.count("\n") == 1


def test_diff_reports_the_expected_file_first_when_both_fail() -> None:  # GAP-5
    code, _, stderr = run("diff", "first-missing.cassette.jsonl", "second-missing.cassette.jsonl")
    assert code == 1
    assert "first-missing" in stderr
    assert "second-missing" not in stderr


def test_lone_surrogates_are_printed_as_replacement_characters() -> None:  # CLI-1
    code, _, stderr = run("bad\ud800")
    assert code == 1
    assert stderr.startswith("Unknown command: bad\ufffd\n")
    stderr.encode("utf-8")
