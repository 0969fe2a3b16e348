"""Session-log file names: `session[.vN].jsonl` for the primary, `session.<k>[.vN].jsonl` per child.

Generation 0 carries no suffix (never `.v0`); generation N > 0 is a lowercase `.vN`; ordinals
and generations have no leading zeros. Any other name is not a canonical session log and is
ignored by selection, so stray files in a session directory never become scripts (LLMREPLAY-2).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Final

_NAME: Final = re.compile(
    r"session(?:\.(?P<ordinal>[1-9][0-9]*))?(?:\.v(?P<generation>[1-9][0-9]*))?\.jsonl",
    re.ASCII,
)

#: The role number of the primary session; children are 1, 2, … by createdAt then id.
PRIMARY_ROLE: Final = 0


@dataclass(frozen=True, slots=True, order=True)
class SessionLogName:
    """A parsed canonical session-log file name: its role (0 = primary) and generation."""

    role: int
    generation: int

    @property
    def file_name(self) -> str:
        """The canonical file name of this role and generation."""
        return session_log_file_name(self.role, self.generation)


def session_log_file_name(role: int, generation: int) -> str:
    """Build the canonical name; role 0 is the primary, generation 0 has no suffix."""
    ordinal = "" if role == PRIMARY_ROLE else f".{role}"
    suffix = "" if generation == 0 else f".v{generation}"
    return f"session{ordinal}{suffix}.jsonl"


def parse_session_log_name(name: str) -> SessionLogName | None:
    """Parse a bare file name; None when it is not a canonical session-log name."""
    found = _NAME.fullmatch(name)
    if found is None:
        return None
    ordinal = found.group("ordinal")
    generation = found.group("generation")
    return SessionLogName(
        role=PRIMARY_ROLE if ordinal is None else int(ordinal),
        generation=0 if generation is None else int(generation),
    )


def select_generations(names: Iterable[str]) -> tuple[SessionLogName, ...]:
    """Pick the numerically highest generation of every role present, ordered by role."""
    highest: dict[int, SessionLogName] = {}
    for name in names:
        parsed = parse_session_log_name(name)
        if parsed is None:
            continue
        known = highest.get(parsed.role)
        if known is None or parsed.generation > known.generation:
            highest[parsed.role] = parsed
    return tuple(highest[role] for role in sorted(highest))


def select_session_log_paths(paths: Iterable[str]) -> tuple[str, ...]:
    """Select, in every directory of a recursive listing, the highest generation per role.

    `paths` are relative POSIX paths; the answer is sorted by directory, then role, so the
    harvest reads files in a deterministic order before ordering them by header.
    """
    by_directory: dict[str, list[str]] = {}
    for path in paths:
        pure = PurePosixPath(path)
        by_directory.setdefault(str(pure.parent), []).append(pure.name)
    selected: list[str] = []
    for directory in sorted(by_directory):
        for chosen in select_generations(by_directory[directory]):
            joined = PurePosixPath(directory) / chosen.file_name
            selected.append(str(joined))
    return tuple(selected)


def next_generation_names(existing: Iterable[str], roles: int) -> tuple[str, ...]:
    """Name the files a record/refresh writes for roles 0..roles-1 (LLMREPLAY-10).

    Each role gets one generation above its highest existing one (0 when it has none), so
    older generations of roles still produced are kept beside the new one.
    """
    highest = {chosen.role: chosen.generation for chosen in select_generations(existing)}
    return tuple(
        session_log_file_name(role, highest[role] + 1 if role in highest else 0)
        for role in range(roles)
    )


def stale_role_names(existing: Iterable[str], roles: int) -> tuple[str, ...]:
    """Name the existing session logs of roles a fresh recording no longer produces."""
    stale: list[str] = []
    for name in sorted(existing):
        parsed = parse_session_log_name(name)
        if parsed is not None and parsed.role >= roles:
            stale.append(name)
    return tuple(stale)
