"""Typed records of mappings FMT-9 / FMT-10 accepted: a structural decode, no casts.

Each decoder matches the validated shape with `match` patterns, so every field is
narrowed to its type by the pattern itself; a shape the rules would never pass is a
Failure, never a record with a wrong type inside. Payload objects and arrays the line's
parse just built are adopted as frozen views (`frozen_json`), without copying or walking.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from returns.result import Failure, Result, Success

from cassette_format.errors import CassetteFormatError
from cassette_format.records.frozen_json import FrozenObject, adopt_array, adopt_object
from cassette_format.records.model import (
    Capabilities,
    CassetteHeader,
    CassetteInteraction,
    FullRequest,
    FullRequestView,
    MetadataRequestView,
    Outcome,
    ProviderFacts,
    RecordedError,
    RequestMetadata,
    RequestView,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["decode_header", "decode_interaction"]

JsonObject = Mapping[str, "JsonValue"]

_UNEXPECTED = "cassette record does not have the shape its checks accepted"


def _unexpected(part: str) -> Failure[CassetteFormatError]:
    return Failure(CassetteFormatError(f"{_UNEXPECTED} ({part})"))


def _strings(values: list[JsonValue]) -> tuple[str, ...]:
    return tuple(value for value in values if isinstance(value, str))


def _optional_string(value: JsonObject, key: str) -> str | None:
    item = value.get(key)
    return item if isinstance(item, str) else None


def _optional_int(value: JsonObject, key: str) -> int | None:
    item = value.get(key)
    return int(item) if isinstance(item, int | float) and not isinstance(item, bool) else None


def _optional_number(value: JsonObject, key: str) -> int | float | None:
    item = value.get(key)
    return item if isinstance(item, int | float) and not isinstance(item, bool) else None


def _optional_object(value: JsonObject, key: str) -> JsonObject | None:
    item = value.get(key)
    return item if isinstance(item, dict) else None


def _optional_frozen(value: JsonObject, key: str) -> FrozenObject | None:
    item = value.get(key)
    return adopt_object(item) if isinstance(item, dict) else None


def decode_header(value: JsonObject) -> Result[CassetteHeader, CassetteFormatError]:
    """The typed header of a mapping FMT-9 accepted."""
    match value:
        case {
            "cassetteId": str(cassette_id),
            "createdAt": str(created_at),
            "provider": {
                "cassette": str(cassette),
                "upstream": str(upstream),
                "capabilities": {
                    "outputSchema": bool(output_schema),
                    "depthLimit": bool(depth_limit),
                    "toolFilter": bool(tool_filter),
                    "persona": bool(persona),
                },
                "inheritsParentContext": bool(inherits_parent_context),
            },
            "requestStorage": "metadata" | "full" as request_storage,
            "redactSecrets": bool(redact_secrets),
            "redactionPatterns": list(patterns),
            "hash": str(digest),
        }:
            capabilities = Capabilities(output_schema, depth_limit, tool_filter, persona)
            return Success(
                CassetteHeader(
                    cassette_id=cassette_id,
                    created_at=created_at,
                    provider=ProviderFacts(
                        cassette, upstream, capabilities, inherits_parent_context
                    ),
                    request_storage=request_storage,
                    redact_secrets=redact_secrets,
                    redaction_patterns=_strings(patterns),
                    hash=digest,
                )
            )
    return _unexpected("header")


def _tool_filter(value: JsonObject) -> ToolFilter | None:
    tool_filter = _optional_object(value, "toolFilter")
    if tool_filter is None:
        return None
    allow = tool_filter.get("allow")
    deny = tool_filter.get("deny")
    return ToolFilter(
        allow=_strings(allow) if isinstance(allow, list) else None,
        deny=_strings(deny) if isinstance(deny, list) else None,
    )


def _metadata_view(metadata: JsonObject) -> RequestView | None:
    match metadata:
        case {
            "promptBlocks": int() | float() as blocks,
            "promptBytes": int() | float() as size,
            "hasOutputSchema": bool(has_output_schema),
            "hasPersona": bool(has_persona),
        }:
            return MetadataRequestView(
                RequestMetadata(
                    prompt_blocks=int(blocks),
                    prompt_bytes=int(size),
                    has_output_schema=has_output_schema,
                    has_persona=has_persona,
                    label=_optional_string(metadata, "label"),
                    max_depth=_optional_int(metadata, "maxDepth"),
                    child_provider=_optional_string(metadata, "childProvider"),
                    child_model=_optional_string(metadata, "childModel"),
                    tool_filter=_tool_filter(metadata),
                )
            )
    return None


def _full_view(full: JsonObject, redactions: int | float) -> RequestView | None:
    match full:
        case {"prompt": list(prompt)}:
            return FullRequestView(
                FullRequest(
                    prompt=adopt_array(prompt),
                    label=_optional_string(full, "label"),
                    agent_options=_optional_frozen(full, "agentOptions"),
                    output_schema=_optional_frozen(full, "outputSchema"),
                    max_depth=_optional_int(full, "maxDepth"),
                    tool_filter=_tool_filter(full),
                    persona=_optional_string(full, "persona"),
                ),
                redactions=int(redactions),
            )
    return None


def _request(request: JsonObject) -> RequestView | None:
    match request:
        case {"storage": "metadata", "metadata": dict(metadata)}:
            return _metadata_view(metadata)
        case {"storage": "full", "value": dict(full), "redactions": int() | float() as count}:
            return _full_view(full, count)
    return None


def _timing(timing: JsonObject) -> Timing | None:
    match timing:
        case {
            "startedAt": str(started_at),
            "startLatencyMs": int() | float() as latency,
            "durationMs": int() | float() as duration,
        }:
            return Timing(
                started_at=started_at,
                start_latency_ms=latency,
                duration_ms=duration,
                signal_aborted_at_ms=_optional_number(timing, "signalAbortedAtMs"),
                dispose_called_at_ms=_optional_number(timing, "disposeCalledAtMs"),
            )
    return None


def _recorded_error(error: JsonObject) -> RecordedError | None:
    match error:
        case {"name": str(name), "message": str(message)}:
            return RecordedError(name, message, _optional_string(error, "code"))
    return None


def _outcome(outcome: JsonObject) -> Outcome | None:
    match outcome:
        case {"kind": "result", "result": dict(result), "redactions": int() | float() as count}:
            return ResultOutcome(result=adopt_object(result), redactions=int(count))
        case {"kind": "start-error", "error": dict(error)}:
            start_error = _recorded_error(error)
            if start_error is not None:
                return StartErrorOutcome(start_error)
        case {"kind": "result-error", "error": dict(error)}:
            result_error = _recorded_error(error)
            if result_error is not None:
                return ResultErrorOutcome(result_error)
    return None


def decode_interaction(value: JsonObject) -> Result[CassetteInteraction, CassetteFormatError]:
    """The typed interaction of a mapping FMT-10 rules 1-9 accepted."""
    match value:
        case {
            "sequence": int() | float() as sequence,
            "callKey": str(call_key),
            "parentKey": str(parent_key),
            "parentContextFingerprint": str(parent_context_fingerprint),
            "occurrence": int() | float() as occurrence,
            "requestFingerprint": str(request_fingerprint),
            "request": dict(request),
            "timing": dict(timing),
            "published": bool(published),
            "local": bool(local),
            "outcome": dict(outcome),
            "previousHash": str(previous_hash),
            "hash": str(digest),
        }:
            request_view = _request(request)
            measured = _timing(timing)
            ended = _outcome(outcome)
            if request_view is None or measured is None or ended is None:
                return _unexpected("interaction")
            return Success(
                CassetteInteraction(
                    sequence=int(sequence),
                    call_key=call_key,
                    parent_key=parent_key,
                    parent_context_fingerprint=parent_context_fingerprint,
                    occurrence=int(occurrence),
                    request_fingerprint=request_fingerprint,
                    request=request_view,
                    timing=measured,
                    published=published,
                    local=local,
                    outcome=ended,
                    previous_hash=previous_hash,
                    hash=digest,
                )
            )
    return _unexpected("interaction")
