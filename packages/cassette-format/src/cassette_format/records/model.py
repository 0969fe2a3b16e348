"""Typed, immutable cassette records, each declared once with its on-disk JSON (FMT-9..FMT-14).

Every record is a `records.declare.record`: its fields are `member(wire, kind, rule)` in
on-disk order, so this module is where each member's wire name, kind, optionality and
requirement id are written, and the only one. Field sets, `to_json`, payload freezing and
the decoder (`records.decode`) are derived from these declarations, and so is the one-pass
check (`rules.fast`); only the ordered rules with the reference's messages (`rules/`)
are written by hand.

Content blocks, agent options, output schemas and the recorded `SubagentResult` stay
validated JSON, so unknown block types and extra result members survive untouched and hash
as written, but as deeply immutable `frozen_json` views: nothing reached through a record
can change it. Plain dicts/lists given to a constructor are frozen copies. `to_json`
reproduces the on-disk dict member for member (absent optional members are omitted, never
written as null) as fresh plain dicts/lists, so canonical JSON of `to_json()` is the record's
line and changing it never changes the record.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, Final, Literal, TypeAlias, get_args

from cassette_format.records.constants import (
    CASSETTE_FORMAT,
    CASSETTE_VERSION,
    HEADER_KIND,
    INTERACTION_KIND,
    TARGET_DSH_SUBAGENT,
)
from cassette_format.records.declare import (
    BLOCKS,
    COUNT,
    DIGEST,
    FLAG,
    MILLIS,
    NAMES,
    NON_EMPTY,
    OBJECT,
    POSITIVE,
    TEXT,
    TIMESTAMP,
    Declared,
    const,
    member,
    nested,
    one_of,
    open_object,
    record,
    union,
)
from cassette_format.records.frozen_json import FrozenArray, FrozenObject, freeze_array
from cassette_format.records.identity import (
    CALL_KEY,
    OCCURRENCE,
    PARENT_CONTEXT_FINGERPRINT,
    PARENT_KEY,
    REQUEST_FINGERPRINT,
    IdentityMembers,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "CASSETTE_FORMAT",
    "CASSETTE_VERSION",
    "HEADER_KIND",
    "INTERACTION_KIND",
    "TARGET_DSH_SUBAGENT",
    "Capabilities",
    "CassetteHeader",
    "CassetteInteraction",
    "FullRequest",
    "FullRequestView",
    "InteractionBody",
    "MetadataRequestView",
    "Outcome",
    "ProviderFacts",
    "RecordedError",
    "RequestMetadata",
    "RequestStorage",
    "RequestView",
    "ResultErrorOutcome",
    "ResultOutcome",
    "StartErrorOutcome",
    "StopReasonCategory",
    "Timing",
    "ToolFilter",
]

RequestStorage: TypeAlias = Literal["metadata", "full"]
StopReasonCategory: TypeAlias = Literal[
    "completed", "aborted", "error", "max-tokens", "refusal", "other"
]
#: The stop reasons a summary counts as completed and as aborted (FMT-20, FMT-21).
STOP_COMPLETED: Final[StopReasonCategory] = "completed"
STOP_ABORTED: Final[StopReasonCategory] = "aborted"

#: The members of a recorded `SubagentResult` every outcome must hold (FMT-13).
RESULT_OUTPUT = "output"
RESULT_STOP_REASON = "stopReason"


@record
class Capabilities(Declared):
    """What the upstream provider supports (header.provider.capabilities)."""

    output_schema: bool = member("outputSchema", FLAG, "FMT-9")
    depth_limit: bool = member("depthLimit", FLAG, "FMT-9")
    tool_filter: bool = member("toolFilter", FLAG, "FMT-9")
    persona: bool = member("persona", FLAG, "FMT-9")


@record
class ProviderFacts(Declared):
    """The cassette provider's name, its upstream and the facts copied from it."""

    cassette: str = member("cassette", NON_EMPTY, "FMT-9")
    upstream: str = member("upstream", NON_EMPTY, "FMT-9")
    capabilities: Capabilities = member("capabilities", nested(Capabilities), "FMT-9")
    inherits_parent_context: bool = member("inheritsParentContext", FLAG, "FMT-9")


#: A header's `hash` and an interaction's `hash`: the digest of the rest of it (FMT-15).
HASH = "hash"
#: The header's cassette id, which the summary and the tail seal repeat (FMT-9).
CASSETTE_ID = "cassetteId"


@record
class CassetteHeader(Declared):
    """Line 1: format, version, target, provider facts and storage policy, plus its hash.

    `kind`, `format`, `version` and `target` are fixed by FMT-9 (never `__init__` arguments).
    """

    kind: Literal["cassette/header"] = member(
        "kind", const(HEADER_KIND), "FMT-9", default=HEADER_KIND, init=False
    )
    format: Literal["dsh-subagent-cassette"] = member(
        "format", const(CASSETTE_FORMAT), "FMT-9", default=CASSETTE_FORMAT, init=False
    )
    version: Literal[1] = member(
        "version", const(CASSETTE_VERSION), "FMT-9", default=CASSETTE_VERSION, init=False
    )
    cassette_id: str = member(CASSETTE_ID, NON_EMPTY, "FMT-9")
    created_at: str = member("createdAt", TIMESTAMP, "D-3")
    target: str = member(
        "target",
        const({"dshSubagent": TARGET_DSH_SUBAGENT}),
        "FMT-9",
        default=TARGET_DSH_SUBAGENT,
        init=False,
    )
    provider: ProviderFacts = member("provider", nested(ProviderFacts), "FMT-9")
    request_storage: RequestStorage = member("requestStorage", one_of("metadata", "full"), "FMT-9")
    redact_secrets: bool = member("redactSecrets", FLAG, "FMT-9")
    redaction_patterns: tuple[str, ...] = member("redactionPatterns", NAMES, "FMT-9")
    hash: str = member(HASH, DIGEST, "FMT-9")

    def body_json(self) -> dict[str, JsonValue]:
        """The header without `hash`: the value its hash covers."""
        body = self.to_json()
        del body[HASH]
        return body


@record
class ToolFilter(Declared):
    """Tool names a child may (allow) or may not (deny) use; None = member absent."""

    allow: tuple[str, ...] | None = member("allow", NAMES, "FMT-11", default=None)
    deny: tuple[str, ...] | None = member("deny", NAMES, "FMT-11", default=None)


@record
class RequestMetadata(Declared):
    """Metadata-only view of a request (NORM-5); never contains prompt text."""

    label: str | None = member("label", TEXT, "FMT-11", default=None, kw_only=True)
    prompt_blocks: int = member("promptBlocks", COUNT, "FMT-11")
    prompt_bytes: int = member("promptBytes", COUNT, "FMT-11")
    has_output_schema: bool = member("hasOutputSchema", FLAG, "FMT-11")
    max_depth: int | None = member("maxDepth", COUNT, "FMT-11", default=None, kw_only=True)
    child_provider: str | None = member("childProvider", TEXT, "FMT-11", default=None, kw_only=True)
    child_model: str | None = member("childModel", TEXT, "FMT-11", default=None, kw_only=True)
    tool_filter: ToolFilter | None = member(
        "toolFilter", nested(ToolFilter), "FMT-11", default=None, kw_only=True
    )
    has_persona: bool = member("hasPersona", FLAG, "FMT-11")


#: The member telling a request view's storage (FMT-11).
STORAGE = "storage"


@record
class MetadataRequestView(Declared):
    """`request` under storage "metadata"."""

    storage: Literal["metadata"] = member(
        STORAGE, const("metadata"), "FMT-11", default="metadata", init=False
    )
    metadata: RequestMetadata = member("metadata", nested(RequestMetadata), "FMT-11")


@record
class FullRequest(Declared):
    """The normalized (possibly redacted) request; `prompt` is validated content blocks."""

    label: str | None = member("label", TEXT, "FMT-11", default=None, kw_only=True)
    prompt: FrozenArray = member("prompt", BLOCKS, "FMT-14")
    agent_options: FrozenObject | None = member(
        "agentOptions", OBJECT, "FMT-11", default=None, kw_only=True
    )
    output_schema: FrozenObject | None = member(
        "outputSchema", OBJECT, "FMT-11", default=None, kw_only=True
    )
    max_depth: int | None = member("maxDepth", COUNT, "FMT-11", default=None, kw_only=True)
    tool_filter: ToolFilter | None = member(
        "toolFilter", nested(ToolFilter), "FMT-11", default=None, kw_only=True
    )
    persona: str | None = member("persona", TEXT, "FMT-11", default=None, kw_only=True)


@record
class FullRequestView(Declared):
    """`request` under storage "full": the request value and its redaction count."""

    storage: Literal["full"] = member(STORAGE, const("full"), "FMT-11", default="full", init=False)
    value: FullRequest = member("value", nested(FullRequest), "FMT-11")
    redactions: int = member("redactions", COUNT, "FMT-11")


RequestView: TypeAlias = MetadataRequestView | FullRequestView


@record
class Timing(Declared):
    """Measured times in ms; the optional ones are None when never observed (FMT-12)."""

    __checks__ = ("v['durationMs'] >= v['startLatencyMs']",)

    started_at: str = member("startedAt", NON_EMPTY, "FMT-12")
    start_latency_ms: float = member("startLatencyMs", MILLIS, "FMT-12")
    duration_ms: float = member("durationMs", MILLIS, "FMT-12")
    signal_aborted_at_ms: float | None = member("signalAbortedAtMs", MILLIS, "FMT-12", default=None)
    dispose_called_at_ms: float | None = member("disposeCalledAtMs", MILLIS, "FMT-12", default=None)


@record
class RecordedError(Declared):
    """The facts kept of a failed start or result: name, message and optional code."""

    name: str = member("name", NON_EMPTY, "FMT-13")
    message: str = member("message", TEXT, "FMT-13")
    code: str | None = member("code", TEXT, "FMT-13", default=None)


#: The member telling an outcome's kind (FMT-13).
OUTCOME_KIND = "kind"


@record
class ResultOutcome(Declared):
    """A terminal SubagentResult, kept as its validated (open) JSON object, frozen."""

    kind: Literal["result"] = member(
        OUTCOME_KIND, const("result"), "FMT-13", default="result", init=False
    )
    result: FrozenObject = member("result", open_object(output=BLOCKS, stopReason=TEXT), "FMT-13")
    redactions: int = member("redactions", COUNT, "FMT-13")

    @property
    def stop_reason(self) -> str:
        """The raw recorded stop reason (validated to be a string)."""
        reason = self.result[RESULT_STOP_REASON]
        return reason if isinstance(reason, str) else ""

    @property
    def output(self) -> FrozenArray:
        """The recorded output content blocks."""
        blocks = self.result[RESULT_OUTPUT]
        return blocks if isinstance(blocks, FrozenArray) else _NO_BLOCKS


@record
class StartErrorOutcome(Declared):
    """The upstream failed before publication."""

    kind: Literal["start-error"] = member(
        OUTCOME_KIND, const("start-error"), "FMT-13", default="start-error", init=False
    )
    error: RecordedError = member("error", nested(RecordedError), "FMT-13")


@record
class ResultErrorOutcome(Declared):
    """The published run's result failed (infrastructure fault or non-JSON result)."""

    kind: Literal["result-error"] = member(
        OUTCOME_KIND, const("result-error"), "FMT-13", default="result-error", init=False
    )
    error: RecordedError = member("error", nested(RecordedError), "FMT-13")


_NO_BLOCKS = freeze_array([])
Outcome: TypeAlias = ResultOutcome | StartErrorOutcome | ResultErrorOutcome


@record
class InteractionBody(IdentityMembers, Declared):
    """An interaction before the writer chains it (no previousHash, no hash)."""

    # FMT-10 rule 5 and the publication rule (FMT-13): a local call is published, and only
    # a start error is unpublished.
    __checks__: ClassVar[tuple[str, ...]] = (
        "v['published'] or not v['local']",
        "(v['outcome']['kind'] == 'start-error') is not v['published']",
    )

    kind: Literal["cassette/interaction"] = member(
        "kind", const(INTERACTION_KIND), "FMT-10", default=INTERACTION_KIND, init=False
    )
    sequence: int = member("sequence", POSITIVE, "FMT-10")
    call_key: str = member(CALL_KEY, NON_EMPTY, "FMT-10")
    parent_key: str = member(PARENT_KEY, NON_EMPTY, "FMT-10")
    parent_context_fingerprint: str = member(PARENT_CONTEXT_FINGERPRINT, DIGEST, "FMT-10")
    occurrence: int = member(OCCURRENCE, POSITIVE, "FMT-10")
    request_fingerprint: str = member(REQUEST_FINGERPRINT, DIGEST, "FMT-10")
    request: RequestView = member(
        "request", union(STORAGE, MetadataRequestView, FullRequestView), "FMT-11"
    )
    timing: Timing = member("timing", nested(Timing), "FMT-12")
    published: bool = member("published", FLAG, "FMT-10")
    local: bool = member("local", FLAG, "FMT-10")
    outcome: Outcome = member(
        "outcome",
        union(OUTCOME_KIND, ResultOutcome, StartErrorOutcome, ResultErrorOutcome),
        "FMT-13",
    )


#: The member linking an interaction to the record before it (FMT-15).
PREVIOUS_HASH = "previousHash"


#: The header's recording-policy fields in reporting order, named by their on-disk paths: what
#: append compares (WRITE-4) and diff reports (DIFF-2); `records.policy` compares them.
PolicyField: TypeAlias = Literal[
    "provider.cassette",
    "provider.upstream",
    "provider.capabilities",
    "provider.inheritsParentContext",
    "requestStorage",
    "redactSecrets",
    "redactionPatterns",
]
POLICY_FIELDS: Final[tuple[PolicyField, ...]] = get_args(PolicyField)


@record
class CassetteInteraction(InteractionBody):
    """One recorded subagent call, chained to the previous physical line (FMT-10, FMT-15)."""

    # FMT-10 rule 9: the record names the hash of the line before it.
    __checks__ = (*InteractionBody.__checks__, "v['previousHash'] == previous_hash")
    __context__ = ("previous_hash",)

    previous_hash: str = member(PREVIOUS_HASH, DIGEST, "FMT-15")
    hash: str = member(HASH, DIGEST, "FMT-15")

    @property
    def body(self) -> InteractionBody:
        """The interaction without its chain fields."""
        return InteractionBody(
            sequence=self.sequence,
            call_key=self.call_key,
            parent_key=self.parent_key,
            parent_context_fingerprint=self.parent_context_fingerprint,
            occurrence=self.occurrence,
            request_fingerprint=self.request_fingerprint,
            request=self.request,
            timing=self.timing,
            published=self.published,
            local=self.local,
            outcome=self.outcome,
        )

    def unhashed_json(self) -> dict[str, JsonValue]:
        """The record without `hash` (previousHash included): the value its hash covers."""
        out = self.to_json()
        del out[HASH]
        return out


@record
class SummaryDocument(Declared):
    """The reference `verify --json` document minus `file`, members in its order (FMT-21)."""

    cassette_id: str = member(CASSETTE_ID, NON_EMPTY, "FMT-21")
    provider: ProviderFacts = member("provider", nested(ProviderFacts), "FMT-21")
    interactions: int = member("interactions", COUNT, "FMT-21")
    completed: int = member("completed", COUNT, "FMT-21")
    failed: int = member("failed", COUNT, "FMT-21")
    aborted: int = member("aborted", COUNT, "FMT-21")
    ambiguous_groups: int = member("ambiguousGroups", COUNT, "FMT-19")
    redacted_results: int = member("redactedResults", COUNT, "FMT-21")
    duration_ms: float = member("durationMs", MILLIS, "FMT-21")
