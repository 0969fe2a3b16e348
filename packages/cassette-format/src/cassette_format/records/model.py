"""Typed, immutable cassette records and their exact on-disk camelCase JSON (FMT-9..FMT-14).

Content blocks, agent options, output schemas and the recorded `SubagentResult` stay
validated JSON, so unknown block types and extra result members survive untouched and
hash as written, but as deeply immutable `frozen_json` views: nothing reached through a
record can change it. Plain dicts/lists given to a constructor are frozen copies.
`to_json` reproduces the on-disk dict member for member (absent optional members are
omitted, never written as null) as fresh plain dicts/lists, so canonical JSON of
`to_json()` is the record's line and changing it never changes the record.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from cassette_format.records.constants import (
    CASSETTE_FORMAT,
    CASSETTE_VERSION,
    HEADER_KIND,
    INTERACTION_KIND,
    TARGET_DSH_SUBAGENT,
)
from cassette_format.records.frozen_json import FrozenArray, FrozenObject, freeze_array, freeze_json
from cassette_format.records.identity import IdentityMembers

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


def _freeze_members(record: object, names: tuple[str, ...]) -> None:
    """Freeze the payload members an untyped caller passed as plain dicts/lists."""
    for name in names:
        value: object = getattr(record, name)
        if isinstance(value, dict | list):
            object.__setattr__(record, name, freeze_json(value))


RequestStorage: TypeAlias = Literal["metadata", "full"]
StopReasonCategory: TypeAlias = Literal[
    "completed", "aborted", "error", "max-tokens", "refusal", "other"
]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the upstream provider supports (header.provider.capabilities)."""

    output_schema: bool
    depth_limit: bool
    tool_filter: bool
    persona: bool

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {
            "outputSchema": self.output_schema,
            "depthLimit": self.depth_limit,
            "toolFilter": self.tool_filter,
            "persona": self.persona,
        }


@dataclass(frozen=True, slots=True)
class ProviderFacts:
    """The cassette provider's name, its upstream and the facts copied from it."""

    cassette: str
    upstream: str
    capabilities: Capabilities
    inherits_parent_context: bool

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {
            "cassette": self.cassette,
            "upstream": self.upstream,
            "capabilities": self.capabilities.to_json(),
            "inheritsParentContext": self.inherits_parent_context,
        }


@dataclass(frozen=True, slots=True)
class CassetteHeader:
    """Line 1: format, version, target, provider facts and storage policy, plus its hash.

    `kind`, `format`, `version` and `target` are fixed by FMT-9 and therefore not fields.
    """

    cassette_id: str
    created_at: str
    provider: ProviderFacts
    request_storage: RequestStorage
    redact_secrets: bool
    redaction_patterns: tuple[str, ...]
    hash: str

    def body_json(self) -> dict[str, JsonValue]:
        """The header without `hash`: the value its hash covers."""
        return {
            "kind": HEADER_KIND,
            "format": CASSETTE_FORMAT,
            "version": CASSETTE_VERSION,
            "cassetteId": self.cassette_id,
            "createdAt": self.created_at,
            "target": {"dshSubagent": TARGET_DSH_SUBAGENT},
            "provider": self.provider.to_json(),
            "requestStorage": self.request_storage,
            "redactSecrets": self.redact_secrets,
            "redactionPatterns": list(self.redaction_patterns),
        }

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object, hash included."""
        body = self.body_json()
        body["hash"] = self.hash
        return body


@dataclass(frozen=True, slots=True)
class ToolFilter:
    """Tool names a child may (allow) or may not (deny) use; None = member absent."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object with only the present members."""
        out: dict[str, JsonValue] = {}
        if self.allow is not None:
            out["allow"] = list(self.allow)
        if self.deny is not None:
            out["deny"] = list(self.deny)
        return out


@dataclass(frozen=True, slots=True)
class RequestMetadata:
    """Metadata-only view of a request (NORM-5); never contains prompt text."""

    prompt_blocks: int
    prompt_bytes: int
    has_output_schema: bool
    has_persona: bool
    label: str | None = None
    max_depth: int | None = None
    child_provider: str | None = None
    child_model: str | None = None
    tool_filter: ToolFilter | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object with only the present members."""
        out: dict[str, JsonValue] = {}
        if self.label is not None:
            out["label"] = self.label
        out["promptBlocks"] = self.prompt_blocks
        out["promptBytes"] = self.prompt_bytes
        out["hasOutputSchema"] = self.has_output_schema
        if self.max_depth is not None:
            out["maxDepth"] = self.max_depth
        if self.child_provider is not None:
            out["childProvider"] = self.child_provider
        if self.child_model is not None:
            out["childModel"] = self.child_model
        if self.tool_filter is not None:
            out["toolFilter"] = self.tool_filter.to_json()
        out["hasPersona"] = self.has_persona
        return out


@dataclass(frozen=True, slots=True)
class MetadataRequestView:
    """`request` under storage "metadata"."""

    metadata: RequestMetadata
    storage: Literal["metadata"] = "metadata"

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {"storage": "metadata", "metadata": self.metadata.to_json()}


@dataclass(frozen=True, slots=True)
class FullRequest:
    """The normalized (possibly redacted) request; `prompt` is validated content blocks."""

    prompt: FrozenArray
    label: str | None = None
    agent_options: FrozenObject | None = None
    output_schema: FrozenObject | None = None
    max_depth: int | None = None
    tool_filter: ToolFilter | None = None
    persona: str | None = None

    def __post_init__(self) -> None:
        _freeze_members(self, ("prompt", "agent_options", "output_schema"))

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object with only the present members."""
        out: dict[str, JsonValue] = {}
        if self.label is not None:
            out["label"] = self.label
        out["prompt"] = self.prompt.thaw()
        if self.agent_options is not None:
            out["agentOptions"] = self.agent_options.thaw()
        if self.output_schema is not None:
            out["outputSchema"] = self.output_schema.thaw()
        if self.max_depth is not None:
            out["maxDepth"] = self.max_depth
        if self.tool_filter is not None:
            out["toolFilter"] = self.tool_filter.to_json()
        if self.persona is not None:
            out["persona"] = self.persona
        return out


@dataclass(frozen=True, slots=True)
class FullRequestView:
    """`request` under storage "full": the request value and its redaction count."""

    value: FullRequest
    redactions: int
    storage: Literal["full"] = "full"

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {"storage": "full", "value": self.value.to_json(), "redactions": self.redactions}


RequestView: TypeAlias = MetadataRequestView | FullRequestView


@dataclass(frozen=True, slots=True)
class Timing:
    """Measured times in ms; the optional ones are None when never observed (FMT-12)."""

    started_at: str
    start_latency_ms: float
    duration_ms: float
    signal_aborted_at_ms: float | None = None
    dispose_called_at_ms: float | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object with only the present members."""
        out: dict[str, JsonValue] = {
            "startedAt": self.started_at,
            "startLatencyMs": self.start_latency_ms,
            "durationMs": self.duration_ms,
        }
        if self.signal_aborted_at_ms is not None:
            out["signalAbortedAtMs"] = self.signal_aborted_at_ms
        if self.dispose_called_at_ms is not None:
            out["disposeCalledAtMs"] = self.dispose_called_at_ms
        return out


@dataclass(frozen=True, slots=True)
class RecordedError:
    """The facts kept of a failed start or result: name, message and optional code."""

    name: str
    message: str
    code: str | None = None

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object with only the present members."""
        out: dict[str, JsonValue] = {"name": self.name, "message": self.message}
        if self.code is not None:
            out["code"] = self.code
        return out


@dataclass(frozen=True, slots=True)
class ResultOutcome:
    """A terminal SubagentResult, kept as its validated (open) JSON object, frozen."""

    result: FrozenObject
    redactions: int
    kind: Literal["result"] = "result"

    def __post_init__(self) -> None:
        _freeze_members(self, ("result",))

    @property
    def stop_reason(self) -> str:
        """The raw recorded stop reason (validated to be a string)."""
        reason = self.result["stopReason"]
        return reason if isinstance(reason, str) else ""

    @property
    def output(self) -> FrozenArray:
        """The recorded output content blocks."""
        blocks = self.result["output"]
        return blocks if isinstance(blocks, FrozenArray) else _NO_BLOCKS

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {"kind": "result", "result": self.result.thaw(), "redactions": self.redactions}


@dataclass(frozen=True, slots=True)
class StartErrorOutcome:
    """The upstream failed before publication."""

    error: RecordedError
    kind: Literal["start-error"] = "start-error"

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {"kind": "start-error", "error": self.error.to_json()}


@dataclass(frozen=True, slots=True)
class ResultErrorOutcome:
    """The published run's result failed (infrastructure fault or non-JSON result)."""

    error: RecordedError
    kind: Literal["result-error"] = "result-error"

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object."""
        return {"kind": "result-error", "error": self.error.to_json()}


_NO_BLOCKS = freeze_array([])
Outcome: TypeAlias = ResultOutcome | StartErrorOutcome | ResultErrorOutcome


@dataclass(frozen=True, slots=True)
class InteractionBody(IdentityMembers):
    """An interaction before the writer chains it (no previousHash, no hash)."""

    sequence: int
    call_key: str
    parent_key: str
    parent_context_fingerprint: str
    occurrence: int
    request_fingerprint: str
    request: RequestView
    timing: Timing
    published: bool
    local: bool
    outcome: Outcome

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk members other than the chain fields."""
        return {
            "kind": INTERACTION_KIND,
            "sequence": self.sequence,
            **self.identity.record_json(self.call_key),
            "request": self.request.to_json(),
            "timing": self.timing.to_json(),
            "published": self.published,
            "local": self.local,
            "outcome": self.outcome.to_json(),
        }


@dataclass(frozen=True, slots=True)
class CassetteInteraction(IdentityMembers):
    """One recorded subagent call, chained to the previous physical line (FMT-10, FMT-15)."""

    sequence: int
    call_key: str
    parent_key: str
    parent_context_fingerprint: str
    occurrence: int
    request_fingerprint: str
    request: RequestView
    timing: Timing
    published: bool
    local: bool
    outcome: Outcome
    previous_hash: str
    hash: str

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
        out = self.body.to_json()
        out["previousHash"] = self.previous_hash
        return out

    def to_json(self) -> dict[str, JsonValue]:
        """The on-disk object, chain fields included."""
        out = self.unhashed_json()
        out["hash"] = self.hash
        return out
