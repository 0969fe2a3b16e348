"""cassette-topology: stable call keys, topology tracking, strict matching, diagnostics, diff.

Pure: no I/O and no clocks. Core steps return `returns` Results carrying a `TopologyError`;
`cassette_topology.exceptions.exception_for(error)` gives the exception the edges raise.
"""

from cassette_format.records.identity import CallGroup, CallIdentity, GroupKey
from cassette_format.records.policy import PolicyField

from cassette_topology.call_keys import (
    DEFAULT_LABEL,
    ROOT_KEY,
    call_key,
    group_key,
    readable_label,
)
from cassette_topology.diagnostics import (
    Diagnostic,
    DiagnosticCandidate,
    DiagnosticRequest,
    MatchDiagnostic,
    MismatchDiagnostic,
    MismatchReason,
    decide_reason,
    mismatch_message,
)
from cassette_topology.diff import (
    BoundaryChangedCall,
    CallSummary,
    CassetteDiff,
    ChangedCall,
    ComparisonIssue,
    TimingDelta,
    diff_cassettes,
)
from cassette_topology.errors import (
    CASSETTE_AMBIGUOUS,
    CASSETTE_MISMATCH,
    INVALID_CONFIG,
    NOT_CANONICAL,
    TopologyError,
)
from cassette_topology.exceptions import (
    CassetteAmbiguityError,
    CassetteMismatchError,
    value_or_raise,
)
from cassette_topology.live import (
    PARENT_CONTEXT_KIND,
    SUBAGENT_ORIGIN,
    LiveCall,
    LiveParent,
    live_call,
    parent_context_fingerprint,
    request_fingerprint,
)
from cassette_topology.matcher import DuplicatePolicy, InteractionMatcher, MatcherState
from cassette_topology.metadata import (
    project_metadata,
    request_metadata,
    stored_request_metadata,
)
from cassette_topology.tracker import ReservedCall, TopologySnapshot, TopologyTracker

__all__ = [
    "CASSETTE_AMBIGUOUS",
    "CASSETTE_MISMATCH",
    "DEFAULT_LABEL",
    "INVALID_CONFIG",
    "NOT_CANONICAL",
    "PARENT_CONTEXT_KIND",
    "ROOT_KEY",
    "SUBAGENT_ORIGIN",
    "BoundaryChangedCall",
    "CallGroup",
    "CallIdentity",
    "CallSummary",
    "CassetteAmbiguityError",
    "CassetteDiff",
    "CassetteMismatchError",
    "ChangedCall",
    "ComparisonIssue",
    "Diagnostic",
    "DiagnosticCandidate",
    "DiagnosticRequest",
    "DuplicatePolicy",
    "GroupKey",
    "InteractionMatcher",
    "LiveCall",
    "LiveParent",
    "MatchDiagnostic",
    "MatcherState",
    "MismatchDiagnostic",
    "MismatchReason",
    "PolicyField",
    "ReservedCall",
    "TimingDelta",
    "TopologyError",
    "TopologySnapshot",
    "TopologyTracker",
    "call_key",
    "decide_reason",
    "diff_cassettes",
    "group_key",
    "live_call",
    "mismatch_message",
    "parent_context_fingerprint",
    "project_metadata",
    "readable_label",
    "request_fingerprint",
    "request_metadata",
    "stored_request_metadata",
    "value_or_raise",
]
