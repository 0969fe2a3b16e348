"""Builders of valid headers and interaction bodies for the format tests."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

from cassette_format import (
    Capabilities,
    CassetteHeader,
    FullRequest,
    FullRequestView,
    InteractionBody,
    MetadataRequestView,
    Outcome,
    RecordedError,
    RequestMetadata,
    RequestStorage,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
    create_header,
)
from cassette_format.records.frozen_json import freeze_array, freeze_object

CAPABILITIES = Capabilities(output_schema=True, depth_limit=True, tool_filter=False, persona=True)
FIXED_TIME = datetime(2026, 8, 18, 3, 0, 0, 123000, tzinfo=UTC)


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def make_header(
    storage: RequestStorage = "metadata", *, patterns: tuple[str, ...] = ()
) -> CassetteHeader:
    return create_header(
        cassette="cassette",
        upstream="spawn",
        capabilities=CAPABILITIES,
        inherits_parent_context=False,
        request_storage=storage,
        redact_secrets=True,
        redaction_patterns=patterns,
        cassette_id="00000000-0000-4000-8000-000000000001",
        created_at=FIXED_TIME,
    ).unwrap()


def outcome_for(kind: str, index: int) -> Outcome:
    if kind == "start-error":
        return StartErrorOutcome(RecordedError("Error", f"start failed {index}", "E_START"))
    if kind == "result-error":
        return ResultErrorOutcome(RecordedError("TypeError", f"bad result {index}"))
    return ResultOutcome(
        result=freeze_object(
            {
                "output": [
                    {"type": "reasoning", "text": "thinking…"},
                    {"type": "tool-call", "id": "c1", "name": "grep", "arguments": "{}"},
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "content": [{"type": "text", "text": "日本語 😀 \u2028"}],
                        "isError": False,
                    },
                    {"type": "custom-block", "payload": {"𐀀": 1, "\uffff": 2.5}},
                    {"type": "text", "text": f"answer {index}"},
                ],
                "stopReason": ["completed", "max-tokens", "aborted", "weird"][index % 4],
                "usage": {"inputTokens": 10 + index, "ratio": 1e-7, "big": 1e21},
            }
        ),
        redactions=index % 2,
    )


def make_body(
    sequence: int,
    *,
    storage: RequestStorage = "metadata",
    kind: str = "result",
    parent_key: str = "root",
    occurrence: int = 1,
    request_tag: str | None = None,
) -> InteractionBody:
    tag = request_tag if request_tag is not None else f"request-{sequence}"
    request = (
        MetadataRequestView(
            RequestMetadata(
                prompt_blocks=1,
                prompt_bytes=40 + sequence,
                has_output_schema=False,
                has_persona=False,
                label="audit",
                max_depth=2,
                child_provider="deepseek",
                tool_filter=ToolFilter(allow=("read",)),
            )
        )
        if storage == "metadata"
        else FullRequestView(
            FullRequest(
                prompt=freeze_array([{"type": "text", "text": f"prompt {tag} é"}]),
                label="audit",
                agent_options=freeze_object({"model": "m", "temperature": 0.2}),
                max_depth=1,
                tool_filter=ToolFilter(deny=("bash",)),
                persona="terse",
            ),
            redactions=0,
        )
    )
    published = kind != "start-error"
    return InteractionBody(
        sequence=sequence,
        call_key=f"{parent_key}/audit-{digest(tag)[7:19]}~{occurrence}",
        parent_key=parent_key,
        parent_context_fingerprint=digest("parent"),
        occurrence=occurrence,
        request_fingerprint=digest(tag),
        request=request,
        timing=Timing(
            started_at="2026-08-18T03:00:00.000Z",
            start_latency_ms=1.5,
            duration_ms=10.25 + sequence,
            signal_aborted_at_ms=3.0 if sequence % 3 == 0 else None,
        ),
        published=published,
        local=published and sequence % 2 == 0,
        outcome=outcome_for(kind, sequence),
    )
