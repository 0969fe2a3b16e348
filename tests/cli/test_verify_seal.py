"""`cassette verify` names a broken tail seal on one line and exits 1 (issue 25)."""

from __future__ import annotations

import io
from pathlib import Path

from cassette_cli import main
from cassette_format import CassetteWriter
from cassette_format.read.tail_seal import seal_path
from format.builders import make_body, make_header


def test_the_cli_names_the_seal_on_one_line_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    with CassetteWriter.open_blocking(path, make_header(), "create") as writer:
        for sequence in (1, 2, 3):
            writer.append_blocking(make_body(sequence))
    lines = path.read_bytes().splitlines(keepends=True)
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["verify", str(path)], stdout=stdout, stderr=stderr) == 0
    path.write_bytes(b"".join(lines[:2]))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["verify", str(path)], stdout=stdout, stderr=stderr)
    assert code == 1
    output = stdout.getvalue() + stderr.getvalue()
    assert output.count("\n") == 1
    assert (
        f'cassette is truncated: its seal "{seal_path(path)}" records 3 interactions, '
        "the file holds 1 (2 missing at the end)"
    ) in output
