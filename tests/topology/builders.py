"""Builders of on-disk interaction documents and live calls for topology tests."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from cassette_canonical import fingerprint
from cassette_format import CassetteFile
from cassette_format.records import (
    Capabilities,
    CassetteHeader,
    CassetteInteraction,
    FullRequest,
    FullRequestView,
    MetadataRequestView,
    Outcome,
    ProviderFacts,
    RecordedError,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
)
from cassette_topology.call_keys import call_key
from cassette_topology.live import LiveCall, LiveParent, live_call
from cassette_topology.metadata import request_metadata

CONTEXT: dict[str, object] = {"options": {}, "session": {}}
OTHER_CONTEXT: dict[str, object] = {"options": {"model": "other"}, "session": {}}
HEADER_HASH = "sha256:" + "0" * 64


def digest(value: object) -> str:
    return fingerprint(value).unwrap()


def context_fingerprint(context: Mapping[str, object] = CONTEXT) -> str:
    return digest({"kind": "dsh-subagent/parent-context", "value": context})


def live_request(label: str | None, text: str, **extra: object) -> dict[str, object]:
    request: dict[str, object] = {} if label is None else {"label": label}
    request["prompt"] = [{"type": "text", "text": text}]
    request.update(extra)
    return request


def text_outcome(
    text: str, stop_reason: str = "completed", redactions: int = 0
) -> dict[str, object]:
    return {
        "kind": "result",
        "result": {"output": [{"type": "text", "text": text}], "stopReason": stop_reason},
        "redactions": redactions,
    }


def error_outcome(kind: str, message: str) -> dict[str, object]:
    return {"kind": kind, "error": {"name": "Error", "message": message}}


def _outcome(document: Mapping[str, object]) -> Outcome:
    if document["kind"] == "result":
        return ResultOutcome(document["result"], document["redactions"])  # type: ignore[arg-type]
    error = RecordedError(**document["error"])  # type: ignore[arg-type]
    if document["kind"] == "start-error":
        return StartErrorOutcome(error)
    return ResultErrorOutcome(error)


def _tool_filter(value: object) -> ToolFilter | None:
    if not isinstance(value, Mapping):
        return None
    allow, deny = value.get("allow"), value.get("deny")
    return ToolFilter(
        tuple(allow) if isinstance(allow, list) else None,
        tuple(deny) if isinstance(deny, list) else None,
    )


def record(document: Mapping[str, object]) -> CassetteInteraction:
    """A typed record from an interaction document built here."""
    view = document["request"]
    assert isinstance(view, Mapping)
    request: MetadataRequestView | FullRequestView
    if view["storage"] == "metadata":
        request = MetadataRequestView(request_metadata(view["value_source"]).unwrap())
    else:
        value = view["value"]
        request = FullRequestView(
            FullRequest(
                prompt=value["prompt"],
                label=value.get("label"),
                agent_options=value.get("agentOptions"),
                output_schema=value.get("outputSchema"),
                max_depth=value.get("maxDepth"),
                tool_filter=_tool_filter(value.get("toolFilter")),
                persona=value.get("persona"),
            ),
            0,
        )
    timing = document["timing"]
    assert isinstance(timing, Mapping)
    return CassetteInteraction(
        sequence=document["sequence"],  # type: ignore[arg-type]
        call_key=document["callKey"],  # type: ignore[arg-type]
        parent_key=document["parentKey"],  # type: ignore[arg-type]
        parent_context_fingerprint=document["parentContextFingerprint"],  # type: ignore[arg-type]
        occurrence=document["occurrence"],  # type: ignore[arg-type]
        request_fingerprint=document["requestFingerprint"],  # type: ignore[arg-type]
        request=request,
        timing=Timing(timing["startedAt"], timing["startLatencyMs"], timing["durationMs"]),
        published=document["published"],  # type: ignore[arg-type]
        local=document["local"],  # type: ignore[arg-type]
        outcome=_outcome(document["outcome"]),  # type: ignore[arg-type]
        previous_hash=HEADER_HASH,
        hash=HEADER_HASH,
    )


def interaction(
    sequence: int,
    request: Mapping[str, object],
    *,
    outcome: Mapping[str, object] | None = None,
    parent_key: str = "root",
    context: Mapping[str, object] = CONTEXT,
    occurrence: int = 1,
    storage: str = "metadata",
    published: bool | None = None,
    local: bool = False,
    start_latency_ms: float = 1.5,
    duration_ms: float = 10.25,
) -> CassetteInteraction:
    """A typed interaction record (hashes are placeholders: nothing here checks them)."""
    outcome = text_outcome(f"result {sequence}") if outcome is None else outcome
    pcf = context_fingerprint(context)
    rf = digest(request)
    label = request.get("label")
    key = call_key(parent_key, label if isinstance(label, str) else None, pcf, rf, occurrence)
    view: dict[str, object] = (
        {"storage": "metadata", "value_source": request}
        if storage == "metadata"
        else {"storage": "full", "value": dict(request), "redactions": 0}
    )
    return record(
        {
            "kind": "cassette/interaction",
            "sequence": sequence,
            "callKey": key.unwrap(),
            "parentKey": parent_key,
            "parentContextFingerprint": pcf,
            "occurrence": occurrence,
            "requestFingerprint": rf,
            "request": view,
            "timing": {
                "startedAt": "2026-01-01T00:00:00.000Z",
                "startLatencyMs": start_latency_ms,
                "durationMs": duration_ms,
            },
            "published": outcome["kind"] != "start-error" if published is None else published,
            "local": local,
            "outcome": dict(outcome),
        }
    )


def header(
    *,
    requestStorage: str = "metadata",
    inheritsParentContext: bool = False,
    upstream: str = "spawn",
) -> CassetteHeader:
    return CassetteHeader(
        cassette_id="00000000-0000-4000-8000-000000000000",
        created_at="2026-01-01T00:00:00.000Z",
        provider=ProviderFacts(
            cassette="cassette",
            upstream=upstream,
            capabilities=Capabilities(True, True, True, True),
            inherits_parent_context=inheritsParentContext,
        ),
        request_storage=requestStorage,  # type: ignore[arg-type]
        redact_secrets=True,
        redaction_patterns=(),
        hash=HEADER_HASH,
    )


def cassette(records: Sequence[CassetteInteraction], **header_facts: object) -> CassetteFile:
    return CassetteFile(header(**header_facts), tuple(records))  # type: ignore[arg-type]


def call(
    request: Mapping[str, object],
    parent: LiveParent | None = None,
    context: Mapping[str, object] = CONTEXT,
) -> LiveCall:
    return live_call(parent or LiveParent("live-root"), request, context).unwrap()
