"""The reference's recorded CLI runs in the interop corpus, as (case, command id) pairs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.paths import INTEROP

MANIFEST: dict[str, Any] = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ReferenceRun:
    """One reference CLI invocation with its exact stdout, stderr and exit code."""

    case: str
    command: str
    args: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str
    note: str | None

    @property
    def id(self) -> str:
        return f"{self.case}:{self.command}"


def _read(relative: str) -> str:
    return (INTEROP / relative).read_bytes().decode("utf-8")


def reference_runs() -> list[ReferenceRun]:
    """Every command of every case, in manifest order."""
    runs = []
    for case in MANIFEST["cases"]:
        for command, expected in case["expected"].items():
            runs.append(
                ReferenceRun(
                    case=case["name"],
                    command=command,
                    args=tuple(expected["args"]),
                    exit_code=expected["exit_code"],
                    stdout=_read(expected["stdout"]),
                    stderr=_read(expected["stderr"]),
                    note=case.get("note"),
                )
            )
    return runs


def runs_of(command: str, *, exit_code: int | None = None) -> list[ReferenceRun]:
    """The runs of one command id, optionally only those with a given exit code."""
    return [
        run
        for run in reference_runs()
        if run.command == command and (exit_code is None or run.exit_code == exit_code)
    ]


def json_stdout(run: ReferenceRun) -> Any:
    """The JSON document a run printed (key order kept)."""
    return json.loads(run.stdout)


def interop_path(relative: str) -> Path:
    return INTEROP / relative
