"""Closed-schema checks of header and interaction values, in the reference's order (FMT-9..14).

Each check raises the private `Reject` at the first failure with the reference's exact
message; `parse`, `verify` and the writer turn it into a `CassetteFormatError` value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING

from cassette_format._blocks import check_content_blocks
from cassette_format._fast_schema import interaction_fits
from cassette_format._fields import (
    CAPABILITY_FIELDS,
    ERROR_FIELDS,
    ERROR_OUTCOME_FIELDS,
    FULL_REQUEST_FIELDS,
    FULL_VIEW_FIELDS,
    HEADER_FIELDS,
    INTERACTION_FIELDS,
    METADATA_FIELDS,
    METADATA_VIEW_FIELDS,
    PROVIDER_FIELDS,
    RESULT_OUTCOME_FIELDS,
    TIMING_FIELDS,
    TOOL_FILTER_FIELDS,
)
from cassette_format._js import js_string
from cassette_format._reject import Reject
from cassette_format._rules import (
    as_object,
    is_digest_text,
    is_number,
    require_closed,
    require_digest,
    require_non_empty_string,
    require_non_negative_finite,
    require_non_negative_integer,
    require_optional_string,
    require_positive_integer,
)
from cassette_format.constants import (
    CASSETTE_FORMAT,
    HEADER_KIND,
    INTERACTION_KIND,
    TARGET_DSH_SUBAGENT,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "check_content_blocks",
    "check_header",
    "check_interaction",
    "is_digest_text",
]

# D-3: RFC 3339 §5.6 date-times (`T`/`Z` in either case, a space separator as its note
# allows, any number of fraction digits, `-00:00`, leap second 60), the ISO 8601 reduced
# form without seconds, or ISO calendar dates. ASCII digits only (`\d` would take any
# Unicode digit).
_ISO_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})"
    r"(?::([0-9]{2})(?:\.([0-9]+))?)?([Zz]|[+-][0-9]{2}:[0-9]{2})"
)
_ISO_DATE = re.compile(r"([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?")
_CAPABILITY_SET = frozenset(CAPABILITY_FIELDS)
_TARGET_FIELDS = frozenset({"dshSubagent"})


def _valid_created_at(text: str) -> bool:
    """D-3: an RFC 3339 date-time (or HH:mm form) with a zone, or an ISO date; real days only."""
    match = _ISO_DATE_TIME.fullmatch(text)
    if match is not None:
        year, month, day, hour, minute = (int(match.group(i)) for i in range(1, 6))
        second = int(match.group(6) or 0)
        zone = match.group(8)
        if zone not in "Zz" and (int(zone[1:3]) > 23 or int(zone[4:6]) > 59):
            return False
        try:
            datetime(year, month, day, hour, minute, 59 if second == 60 else second)
        except ValueError:
            return False
        return True
    match = _ISO_DATE.fullmatch(text)
    if match is None:
        return False
    try:
        date(int(match.group(1)), int(match.group(2) or 1), int(match.group(3) or 1))
    except ValueError:
        return False
    return True


def check_header(value: object) -> Mapping[str, JsonValue]:
    """FMT-9 rules 1-17 (the hash comparison is the caller's): returns the header mapping."""
    header = as_object(value)
    if header is None:
        raise Reject("line 1 must be a cassette header object", line=1)
    if header.get("kind") != HEADER_KIND:
        raise Reject("line 1 is not a cassette header", line=1)
    require_closed(header, HEADER_FIELDS, "header")
    if header.get("format") != CASSETTE_FORMAT:
        shown = js_string(header.get("format"), present="format" in header)
        raise Reject(f'unsupported cassette format "{shown}"', line=1, path="header.format")
    version = header.get("version")
    if not is_number(version) or version != 1:
        shown = js_string(version, present="version" in header)
        raise Reject(f"unsupported cassette schema version {shown}", line=1, path="header.version")
    require_non_empty_string(header.get("cassetteId"), "header.cassetteId")
    created_at = header.get("createdAt")
    require_non_empty_string(created_at, "header.createdAt")
    if not _valid_created_at(str(created_at)):
        raise Reject("header.createdAt must be an ISO timestamp", line=1, path="header.createdAt")
    target = as_object(header.get("target"))
    if target is None or target.get("dshSubagent") != TARGET_DSH_SUBAGENT:
        shown = (
            "undefined"
            if target is None
            else js_string(target.get("dshSubagent"), present="dshSubagent" in target)
        )
        raise Reject(
            f"cassette targets @deepseek-ai/dsh-subagent {shown}, expected {TARGET_DSH_SUBAGENT}",
            line=1,
            path="header.target",
        )
    require_closed(target, _TARGET_FIELDS, "header.target")
    provider = as_object(header.get("provider"))
    if provider is None:
        raise Reject("header.provider must be an object", line=1, path="header.provider")
    require_closed(provider, PROVIDER_FIELDS, "header.provider")
    require_non_empty_string(provider.get("cassette"), "header.provider.cassette")
    require_non_empty_string(provider.get("upstream"), "header.provider.upstream")
    capabilities = as_object(provider.get("capabilities"))
    caps_path = "header.provider.capabilities"
    if capabilities is None:
        raise Reject(f"{caps_path} must be an object", line=1, path=caps_path)
    require_closed(capabilities, _CAPABILITY_SET, caps_path)
    for key in CAPABILITY_FIELDS:
        if not isinstance(capabilities.get(key), bool):
            raise Reject(f"{caps_path}.{key} must be a boolean", line=1, path=f"{caps_path}.{key}")
    if not isinstance(provider.get("inheritsParentContext"), bool):
        raise Reject(
            "header.provider.inheritsParentContext must be a boolean",
            line=1,
            path="header.provider.inheritsParentContext",
        )
    if header.get("requestStorage") not in ("metadata", "full"):
        raise Reject(
            'header.requestStorage must be "metadata" or "full"',
            line=1,
            path="header.requestStorage",
        )
    if not isinstance(header.get("redactSecrets"), bool):
        raise Reject("header.redactSecrets must be a boolean", line=1, path="header.redactSecrets")
    patterns = header.get("redactionPatterns")
    if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
        raise Reject(
            "header.redactionPatterns must be an array of strings",
            line=1,
            path="header.redactionPatterns",
        )
    require_digest(header.get("hash"), "header.hash")
    return header


def _check_tool_filter(value: object, path: str) -> None:
    tool_filter = as_object(value)
    if tool_filter is None:
        raise Reject(f"{path} must be an object", path=path)
    require_closed(tool_filter, TOOL_FILTER_FIELDS, path)
    for field in ("allow", "deny"):
        if field in tool_filter:
            names = tool_filter[field]
            if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
                raise Reject(
                    f"{path}.{field} must be an array of strings when present",
                    path=f"{path}.{field}",
                )


def _check_metadata(value: object, path: str) -> None:
    metadata = as_object(value)
    if metadata is None:
        raise Reject(f"{path} must be an object", path=path)
    require_closed(metadata, METADATA_FIELDS, path)
    require_optional_string(metadata, "label", path)
    require_non_negative_integer(metadata.get("promptBlocks"), path, ".promptBlocks")
    require_non_negative_integer(metadata.get("promptBytes"), path, ".promptBytes")
    if not isinstance(metadata.get("hasOutputSchema"), bool) or not isinstance(
        metadata.get("hasPersona"), bool
    ):
        raise Reject(f"{path}.hasOutputSchema and {path}.hasPersona must be booleans", path=path)
    if "maxDepth" in metadata:
        require_non_negative_integer(metadata["maxDepth"], path, ".maxDepth")
    require_optional_string(metadata, "childProvider", path)
    require_optional_string(metadata, "childModel", path)
    if "toolFilter" in metadata:
        _check_tool_filter(metadata["toolFilter"], f"{path}.toolFilter")


def _check_full_request(value: object, path: str) -> None:
    request = as_object(value)
    if request is None:
        raise Reject(f"{path} must be an object", path=path)
    require_closed(request, FULL_REQUEST_FIELDS, path)
    check_content_blocks(request.get("prompt"), f"{path}.prompt")
    require_optional_string(request, "label", path)
    for key in ("agentOptions", "outputSchema"):
        if key in request and as_object(request[key]) is None:
            raise Reject(f"{path}.{key} must be an object when present", path=f"{path}.{key}")
    if "maxDepth" in request:
        require_non_negative_integer(request["maxDepth"], path, ".maxDepth")
    if "toolFilter" in request:
        _check_tool_filter(request["toolFilter"], f"{path}.toolFilter")
    require_optional_string(request, "persona", path)


def _check_request(value: object, path: str) -> None:
    request = as_object(value)
    if request is None:
        raise Reject(f"{path} must be an object", path=path)
    storage = request.get("storage")
    if storage == "metadata":
        require_closed(request, METADATA_VIEW_FIELDS, path)
        _check_metadata(request.get("metadata"), f"{path}.metadata")
    elif storage == "full":
        require_closed(request, FULL_VIEW_FIELDS, path)
        _check_full_request(request.get("value"), f"{path}.value")
        require_non_negative_integer(request.get("redactions"), path, ".redactions")
    else:
        raise Reject(f'{path}.storage must be "metadata" or "full"', path=f"{path}.storage")


def _check_timing(value: object, path: str) -> None:
    timing = as_object(value)
    if timing is None:
        raise Reject(f"{path} must be an object", path=path)
    require_closed(timing, TIMING_FIELDS, path)
    require_non_empty_string(timing.get("startedAt"), path, ".startedAt")
    latency = timing.get("startLatencyMs")
    duration = timing.get("durationMs")
    require_non_negative_finite(latency, path, ".startLatencyMs")
    require_non_negative_finite(duration, path, ".durationMs")
    if duration < latency:  # type: ignore[operator]
        raise Reject(f"{path}.durationMs cannot be less than startLatencyMs", path=path)
    for key in ("signalAbortedAtMs", "disposeCalledAtMs"):
        if key in timing:
            require_non_negative_finite(timing[key], path, "." + key)


def _check_recorded_error(value: object, path: str) -> None:
    error = as_object(value)
    if error is None:
        raise Reject(f"{path} must be an object", path=path)
    require_closed(error, ERROR_FIELDS, path)
    require_non_empty_string(error.get("name"), path, ".name")
    if not isinstance(error.get("message"), str):
        raise Reject(f"{path}.message must be a string", path=f"{path}.message")
    require_optional_string(error, "code", path)


def _check_outcome(value: object, path: str) -> None:
    outcome = as_object(value)
    if outcome is None:
        raise Reject(f"{path} must be an object", path=path)
    kind = outcome.get("kind")
    if kind in ("start-error", "result-error"):
        require_closed(outcome, ERROR_OUTCOME_FIELDS, path)
        _check_recorded_error(outcome.get("error"), f"{path}.error")
        return
    if kind != "result":
        raise Reject(f"{path}.kind is unsupported", path=f"{path}.kind")
    require_closed(outcome, RESULT_OUTCOME_FIELDS, path)
    require_non_negative_integer(outcome.get("redactions"), path, ".redactions")
    result = as_object(outcome.get("result"))
    if (
        result is None
        or not isinstance(result.get("output"), list)
        or not isinstance(result.get("stopReason"), str)
    ):
        raise Reject(f"{path}.result must contain output[] and stopReason", path=f"{path}.result")
    check_content_blocks(result["output"], f"{path}.result.output")


def check_interaction(value: object, line: int, previous_hash: str) -> Mapping[str, JsonValue]:
    """FMT-10 rules 1-9 (the hash comparison is the caller's): returns the interaction mapping."""
    if interaction_fits(value, previous_hash):
        return value  # type: ignore[return-value]  # fits() proved it is such a mapping
    return check_interaction_in_order(value, line, previous_hash)


def check_interaction_in_order(
    value: object, line: int, previous_hash: str
) -> Mapping[str, JsonValue]:
    """The same rules one by one in the reference's order: its first failure, or the mapping."""
    p = f"line {line}"
    record = as_object(value)
    if record is None or record.get("kind") != INTERACTION_KIND:
        raise Reject(f"{p} is not a cassette interaction", line=line)
    require_closed(record, INTERACTION_FIELDS, p)
    require_positive_integer(record.get("sequence"), p, ".sequence")
    require_non_empty_string(record.get("callKey"), p, ".callKey")
    require_non_empty_string(record.get("parentKey"), p, ".parentKey")
    require_digest(record.get("parentContextFingerprint"), p, ".parentContextFingerprint")
    require_positive_integer(record.get("occurrence"), p, ".occurrence")
    require_digest(record.get("requestFingerprint"), p, ".requestFingerprint")
    _check_request(record.get("request"), f"{p}.request")
    _check_timing(record.get("timing"), f"{p}.timing")
    published = record.get("published")
    local = record.get("local")
    if not isinstance(published, bool) or not isinstance(local, bool):
        raise Reject(f"{p}.published and {p}.local must be booleans", line=line)
    _check_outcome(record.get("outcome"), f"{p}.outcome")
    outcome = record["outcome"]
    kind = outcome.get("kind") if isinstance(outcome, dict) else None
    if kind == "start-error" and published is not False:
        raise Reject(f"{p} start-error must be unpublished", line=line)
    if kind != "start-error" and published is not True:
        raise Reject(f"{p} post-publication outcome must be published", line=line)
    if local is True and published is not True:
        raise Reject(f"{p} an unpublished interaction cannot be local", line=line)
    require_digest(record.get("previousHash"), p, ".previousHash")
    require_digest(record.get("hash"), p, ".hash")
    if record["previousHash"] != previous_hash:
        raise Reject(f"{p} hash chain points to the wrong previous record", line=line)
    return record
