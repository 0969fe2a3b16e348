"""The one error value of cassette-format: a frozen problem with a stable code and a location.

The core (rules, readers, the sealer) returns it inside `Failure(...)` or as a plain union on
verify's hot path; only `cassette_format.errors` turns it into the exception users catch
(ERR-1), at the file edges.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["CASSETTE_FORMAT_CODE", "FormatProblem"]

#: A malformed, partial or tampered cassette, or a refused write (ERR-1).
CASSETTE_FORMAT_CODE: Final = "CASSETTE_FORMAT"


@dataclass(frozen=True, slots=True)
class FormatProblem:
    """Why a cassette, a session log (or a line, or a write) is refused: code, message, where.

    `line` is the 1-based line the message names (None when file-wide), `path` the JSON path
    of the offending member when one is known. `cause` is the OS error behind an I/O refusal
    (not part of equality). `per_call` marks a refusal of one interaction that leaves the
    writer going (`InteractionRefused`). Session logs and per-session model replay use the
    `SESSION_*` codes and may name the `session` and its 1-based `call_index`; a binding
    failure carries its DIAG-style metadata document in `diagnostic` (not part of equality).
    Messages are metadata only: ids quoted (`sessions.quote`), never requests or bodies.
    """

    #: The human message, identical to the reference's template.
    message: str
    line: int | None = None
    path: str | None = None
    #: The stable machine-readable code.
    code: str = CASSETTE_FORMAT_CODE
    cause: BaseException | None = field(default=None, compare=False, repr=False)
    per_call: bool = False
    #: The recorded or live session id the failure is about, when there is one.
    session: str | None = None
    #: The 1-based call of that session.
    call_index: int | None = None
    diagnostic: Mapping[str, JsonValue] | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.message

    def at_line(self, line: int) -> FormatProblem:
        """The same problem naming `line` (a new value; this one is unchanged)."""
        return replace(self, line=line)
