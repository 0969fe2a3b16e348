"""Typed records from mappings that already passed `schema` (no checks repeated here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

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
    RequestMetadata,
    RequestStorage,
    RequestView,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["header_from_checked", "interaction_from_checked"]

_Obj = Mapping[str, "JsonValue"]


def _obj(value: object) -> _Obj:
    return cast(_Obj, value)


def _opt_str(value: _Obj, key: str) -> str | None:
    item = value.get(key)
    return item if isinstance(item, str) else None


def _opt_int(value: _Obj, key: str) -> int | None:
    item = value.get(key)
    return None if item is None or isinstance(item, bool) else int(cast(float, item))


def _opt_float(value: _Obj, key: str) -> float | None:
    item = value.get(key)
    return None if item is None else cast(float, item)


def _strings(value: object) -> tuple[str, ...]:
    return tuple(cast(list[str], value))


def header_from_checked(value: _Obj) -> CassetteHeader:
    """The typed header of a mapping `check_header` accepted."""
    provider = _obj(value["provider"])
    caps = _obj(provider["capabilities"])
    return CassetteHeader(
        cassette_id=cast(str, value["cassetteId"]),
        created_at=cast(str, value["createdAt"]),
        provider=ProviderFacts(
            cassette=cast(str, provider["cassette"]),
            upstream=cast(str, provider["upstream"]),
            capabilities=Capabilities(
                output_schema=caps["outputSchema"] is True,
                depth_limit=caps["depthLimit"] is True,
                tool_filter=caps["toolFilter"] is True,
                persona=caps["persona"] is True,
            ),
            inherits_parent_context=provider["inheritsParentContext"] is True,
        ),
        request_storage=cast(RequestStorage, value["requestStorage"]),
        redact_secrets=value["redactSecrets"] is True,
        redaction_patterns=_strings(value["redactionPatterns"]),
        hash=cast(str, value["hash"]),
    )


def _tool_filter(value: object) -> ToolFilter | None:
    if value is None:
        return None
    tool_filter = _obj(value)
    allow = tool_filter.get("allow")
    deny = tool_filter.get("deny")
    return ToolFilter(
        allow=None if "allow" not in tool_filter else _strings(allow),
        deny=None if "deny" not in tool_filter else _strings(deny),
    )


def _request(value: _Obj) -> RequestView:
    if value["storage"] == "metadata":
        meta = _obj(value["metadata"])
        return MetadataRequestView(
            metadata=RequestMetadata(
                prompt_blocks=int(cast(float, meta["promptBlocks"])),
                prompt_bytes=int(cast(float, meta["promptBytes"])),
                has_output_schema=meta["hasOutputSchema"] is True,
                has_persona=meta["hasPersona"] is True,
                label=_opt_str(meta, "label"),
                max_depth=_opt_int(meta, "maxDepth"),
                child_provider=_opt_str(meta, "childProvider"),
                child_model=_opt_str(meta, "childModel"),
                tool_filter=_tool_filter(meta.get("toolFilter")),
            )
        )
    full = _obj(value["value"])
    agent_options = full.get("agentOptions")
    output_schema = full.get("outputSchema")
    return FullRequestView(
        value=FullRequest(
            prompt=tuple(cast(list["JsonValue"], full["prompt"])),
            label=_opt_str(full, "label"),
            agent_options=None if agent_options is None else _obj(agent_options),
            output_schema=None if output_schema is None else _obj(output_schema),
            max_depth=_opt_int(full, "maxDepth"),
            tool_filter=_tool_filter(full.get("toolFilter")),
            persona=_opt_str(full, "persona"),
        ),
        redactions=int(cast(float, value["redactions"])),
    )


def _recorded_error(value: object) -> RecordedError:
    error = _obj(value)
    return RecordedError(
        name=cast(str, error["name"]),
        message=cast(str, error["message"]),
        code=_opt_str(error, "code"),
    )


def _outcome(value: _Obj) -> Outcome:
    kind = value["kind"]
    if kind == "start-error":
        return StartErrorOutcome(error=_recorded_error(value["error"]))
    if kind == "result-error":
        return ResultErrorOutcome(error=_recorded_error(value["error"]))
    return ResultOutcome(
        result=_obj(value["result"]), redactions=int(cast(float, value["redactions"]))
    )


def interaction_from_checked(value: _Obj) -> CassetteInteraction:
    """The typed interaction of a mapping `check_interaction` accepted."""
    timing = _obj(value["timing"])
    return CassetteInteraction(
        sequence=int(cast(float, value["sequence"])),
        call_key=cast(str, value["callKey"]),
        parent_key=cast(str, value["parentKey"]),
        parent_context_fingerprint=cast(str, value["parentContextFingerprint"]),
        occurrence=int(cast(float, value["occurrence"])),
        request_fingerprint=cast(str, value["requestFingerprint"]),
        request=_request(_obj(value["request"])),
        timing=Timing(
            started_at=cast(str, timing["startedAt"]),
            start_latency_ms=cast(float, timing["startLatencyMs"]),
            duration_ms=cast(float, timing["durationMs"]),
            signal_aborted_at_ms=_opt_float(timing, "signalAbortedAtMs"),
            dispose_called_at_ms=_opt_float(timing, "disposeCalledAtMs"),
        ),
        published=value["published"] is True,
        local=value["local"] is True,
        outcome=_outcome(_obj(value["outcome"])),
        previous_hash=cast(str, value["previousHash"]),
        hash=cast(str, value["hash"]),
    )
