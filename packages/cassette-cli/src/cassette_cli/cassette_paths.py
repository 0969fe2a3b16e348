"""Expanding `verify` arguments into cassette files: plain paths, directories and globs."""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

__all__ = ["CASSETTE_SUFFIX", "Expansion", "expand_paths", "wants_many"]

CASSETTE_SUFFIX: Final = ".cassette.jsonl"


@dataclass(frozen=True, slots=True)
class Expansion:
    """The files to verify (as shown, in order) and the arguments that named none."""

    files: tuple[str, ...]
    empty: tuple[tuple[str, str], ...]


def _is_pattern(argument: str) -> bool:
    """A glob pattern, unless a file of that very name exists."""
    return glob.has_magic(argument) and not os.path.lexists(argument)


def wants_many(arguments: Sequence[str]) -> bool:
    """True unless the arguments are one plain path, which keeps the reference's output."""
    if len(arguments) != 1:
        return True
    argument = arguments[0]
    return os.path.isdir(argument) or _is_pattern(argument)


def _directory_cassettes(directory: str) -> list[str]:
    """Every `*.cassette.jsonl` below `directory`, in sorted path order (iterative walk)."""
    found: list[str] = []
    for current, subdirectories, names in os.walk(directory):
        subdirectories.sort()
        found.extend(
            os.path.join(current, name) for name in sorted(names) if name.endswith(CASSETTE_SUFFIX)
        )
    return sorted(found)


def expand_paths(arguments: Sequence[str]) -> Expansion:
    """Files named by the arguments, each once, in argument order; directories recurse."""
    files: list[str] = []
    seen: set[str] = set()
    empty: list[tuple[str, str]] = []

    def add(path: str) -> None:
        key = os.path.abspath(path)
        if key not in seen:
            seen.add(key)
            files.append(path)

    for argument in arguments:
        if os.path.isdir(argument):
            found = _directory_cassettes(argument)
            if not found:
                empty.append((argument, f"no *{CASSETTE_SUFFIX} files in this directory"))
        elif _is_pattern(argument):
            found = []
            for match in sorted(glob.glob(argument, recursive=True)):
                found.extend(_directory_cassettes(match) if os.path.isdir(match) else [match])
            if not found:
                empty.append((argument, "no file matches this pattern"))
        else:
            found = [argument]
        for path in found:
            add(path)
    return Expansion(tuple(files), tuple(empty))
