"""The one failure value of the topology core; `exceptions` alone turns it into exceptions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from cassette_format.problem import FormatProblem

    from cassette_topology.diagnostics import MismatchDiagnostic

#: A live call has no recorded interaction left to consume (ERR-1).
CASSETTE_MISMATCH: Final = "CASSETTE_MISMATCH"
#: A call has no stable identity: a second root, a foreign subagent parent, a remap (ERR-1).
CASSETTE_AMBIGUOUS: Final = "CASSETTE_AMBIGUOUS"
#: A matcher option is invalid (GAP-13).
INVALID_CONFIG: Final = "INVALID_CONFIG"
#: A live request or parent context is not lossless canonical JSON, so it has no fingerprint.
NOT_CANONICAL: Final = "NOT_CANONICAL"


@dataclass(frozen=True, slots=True)
class TopologyError:
    """Why a topology step refused, with a stable code; messages carry metadata only."""

    code: str
    message: str
    diagnostic: MismatchDiagnostic | None = field(default=None, compare=False)
    canonical_code: str | None = None
    #: A line the lazy reader delivered no longer verifies: the loader's problem (CASSETTE_FORMAT).
    format_problem: FormatProblem | None = field(default=None, compare=False)
