"""The console script's process edge: UTF-8 whatever the locale, exit codes (CLI-1, CLI-11)."""

from __future__ import annotations

import os
import subprocess
import sys

from support.paths import INTEROP

VALID = str(INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl")


def cassette(*args: str | bytes) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"}
    return subprocess.run(
        [sys.executable, "-m", "cassette_cli", *args], capture_output=True, env=env, check=False
    )


def test_output_is_utf8_even_when_the_locale_is_not() -> None:  # CLI-1
    done = cassette("verify", "é.cassette.jsonl")
    assert done.returncode == 1
    assert done.stdout == b""
    assert done.stderr.decode("utf-8").endswith('/é.cassette.jsonl"\n')


def test_undecodable_argument_is_printed_as_replacement_character() -> None:  # CLI-1
    done = cassette(b"bad\xff")
    assert done.returncode == 1
    assert done.stderr.decode("utf-8").startswith("Unknown command: bad\ufffd\n\nUsage:\n")


def test_success_exit_code_and_stdout() -> None:  # CLI-5, CLI-11
    done = cassette("verify", VALID)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == (
        b"OK: 5 interaction(s), hash chain verified (942c29e9-db09-4027-b262-510b60dc50e9)\n"
    )


def test_verify_imports_no_topology_provider_or_returns() -> None:
    # Start-up cost is paid per invocation (CI runs verify per file): keep it to the verifier.
    probe = (
        "import io, sys\n"
        "from cassette_cli import main\n"
        f"code = main(['verify', {VALID!r}], stdout=io.StringIO())\n"
        "heavy = [m for m in ('cassette_topology', 'cassette_provider', 'returns.result',"
        " 'concurrent.futures', 'multiprocessing', 'importlib.metadata') if m in sys.modules]\n"
        "print(code, heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, check=False)
    assert done.stdout == b"0 []\n", done.stderr
