"""The member names each closed schema allows (FMT-9..13), shared by both schema checkers."""

from __future__ import annotations

__all__ = [
    "CAPABILITY_FIELDS",
    "ERROR_FIELDS",
    "ERROR_OUTCOME_FIELDS",
    "FULL_REQUEST_FIELDS",
    "FULL_VIEW_FIELDS",
    "HEADER_FIELDS",
    "INTERACTION_FIELDS",
    "METADATA_FIELDS",
    "METADATA_VIEW_FIELDS",
    "PROVIDER_FIELDS",
    "RESULT_OUTCOME_FIELDS",
    "TIMING_FIELDS",
    "TOOL_FILTER_FIELDS",
]

HEADER_FIELDS = frozenset(
    {
        "kind",
        "format",
        "version",
        "cassetteId",
        "createdAt",
        "target",
        "provider",
        "requestStorage",
        "redactSecrets",
        "redactionPatterns",
        "hash",
    }
)
PROVIDER_FIELDS = frozenset({"cassette", "upstream", "capabilities", "inheritsParentContext"})
CAPABILITY_FIELDS = ("outputSchema", "depthLimit", "toolFilter", "persona")  # checked in order
INTERACTION_FIELDS = frozenset(
    {
        "kind",
        "sequence",
        "callKey",
        "parentKey",
        "parentContextFingerprint",
        "occurrence",
        "requestFingerprint",
        "request",
        "timing",
        "published",
        "local",
        "outcome",
        "previousHash",
        "hash",
    }
)
METADATA_VIEW_FIELDS = frozenset({"storage", "metadata"})
FULL_VIEW_FIELDS = frozenset({"storage", "value", "redactions"})
METADATA_FIELDS = frozenset(
    {
        "label",
        "promptBlocks",
        "promptBytes",
        "hasOutputSchema",
        "maxDepth",
        "childProvider",
        "childModel",
        "toolFilter",
        "hasPersona",
    }
)
FULL_REQUEST_FIELDS = frozenset(
    {"label", "prompt", "agentOptions", "outputSchema", "maxDepth", "toolFilter", "persona"}
)
TIMING_FIELDS = frozenset(
    {"startedAt", "startLatencyMs", "durationMs", "signalAbortedAtMs", "disposeCalledAtMs"}
)
RESULT_OUTCOME_FIELDS = frozenset({"kind", "result", "redactions"})
ERROR_OUTCOME_FIELDS = frozenset({"kind", "error"})
ERROR_FIELDS = frozenset({"name", "message", "code"})
TOOL_FILTER_FIELDS = frozenset({"allow", "deny"})
