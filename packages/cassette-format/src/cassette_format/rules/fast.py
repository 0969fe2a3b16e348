"""FMT-10 rules 1-9 (with FMT-11..14) in one pass, so the ordered checks run only on doubt.

`interaction_fits` answers one question: does this value plainly satisfy every rule of
FMT-10 rules 1-9? It is deliberately narrower than the ordered checks (integers
must be ints, never integral floats; any surprise answers False) and never builds a
message. False only means "ask the ordered checks" (`interaction_rules`, where FMT-10
lives), which find the reference's first failure in the reference's order or accept the
unusual-but-valid record. The invariant
`interaction_fits(v, h) => check_interaction(v, line, h) accepts v` is property-tested.
"""

from __future__ import annotations

import math

from cassette_canonical import is_digest
from cassette_canonical.limits import MAX_SAFE_INTEGER

from cassette_format.records.constants import CASSETTE_FORMAT, HEADER_KIND, TARGET_DSH_SUBAGENT
from cassette_format.records.fields import (
    ERROR_FIELDS,
    ERROR_OUTCOME_FIELDS,
    FULL_REQUEST_FIELDS,
    FULL_VIEW_FIELDS,
    HEADER_FIELDS,
    INTERACTION_FIELDS,
    METADATA_FIELDS,
    METADATA_VIEW_FIELDS,
    RESULT_OUTCOME_FIELDS,
    TIMING_FIELDS,
    TOOL_FILTER_FIELDS,
)
from cassette_format.rules.content_blocks import check_content_blocks
from cassette_format.text.created_at import valid_created_at

__all__ = ["header_fits", "interaction_fits"]

_MAX_SAFE = MAX_SAFE_INTEGER
_INF = math.inf


def _count(value: object) -> bool:
    """A non-negative safe integer held as an int."""
    return type(value) is int and 0 <= value <= _MAX_SAFE


def _milliseconds(value: object) -> bool:
    """A non-negative finite number."""
    kind = type(value)
    return (kind is float and 0 <= value < _INF) or (kind is int and value >= 0)  # type: ignore[operator]


def _names(value: object) -> bool:
    if type(value) is not list:
        return False
    for name in value:  # noqa: SIM110 - a plain loop is cheaper than all() over a generator
        if type(name) is not str:
            return False
    return True


def _tool_filter_fits(value: object) -> bool:
    if type(value) is not dict or not value.keys() <= TOOL_FILTER_FIELDS:
        return False
    return ("allow" not in value or _names(value["allow"])) and (
        "deny" not in value or _names(value["deny"])
    )


def _blocks_fit(value: object) -> bool:
    return type(value) is list and check_content_blocks(value, "") is None


def _metadata_fits(metadata: object) -> bool:
    if type(metadata) is not dict or not metadata.keys() <= METADATA_FIELDS:
        return False
    blocks = metadata.get("promptBlocks")
    size = metadata.get("promptBytes")
    depth = metadata.get("maxDepth", 0)
    if not (
        type(blocks) is int
        and 0 <= blocks <= _MAX_SAFE
        and type(size) is int
        and 0 <= size <= _MAX_SAFE
        and type(depth) is int
        and 0 <= depth <= _MAX_SAFE
        and type(metadata.get("hasOutputSchema")) is bool
        and type(metadata.get("hasPersona")) is bool
        and type(metadata.get("label", "")) is str
        and type(metadata.get("childProvider", "")) is str
        and type(metadata.get("childModel", "")) is str
    ):
        return False
    return "toolFilter" not in metadata or _tool_filter_fits(metadata["toolFilter"])


def _full_fits(request: object) -> bool:
    if type(request) is not dict or not request.keys() <= FULL_REQUEST_FIELDS:
        return False
    for key in ("label", "persona"):
        if key in request and type(request[key]) is not str:
            return False
    for key in ("agentOptions", "outputSchema"):
        if key in request and type(request[key]) is not dict:
            return False
    if "maxDepth" in request and not _count(request["maxDepth"]):
        return False
    if "toolFilter" in request and not _tool_filter_fits(request["toolFilter"]):
        return False
    return _blocks_fit(request.get("prompt"))


def _request_fits(request: object) -> bool:
    if type(request) is not dict:
        return False
    storage = request.get("storage")
    if storage == "metadata":
        return request.keys() == METADATA_VIEW_FIELDS and _metadata_fits(request["metadata"])
    return (
        storage == "full"
        and request.keys() == FULL_VIEW_FIELDS
        and _count(request["redactions"])
        and _full_fits(request["value"])
    )


def _timing_fits(timing: object) -> bool:
    if type(timing) is not dict or not timing.keys() <= TIMING_FIELDS:
        return False
    started = timing.get("startedAt")
    latency = timing.get("startLatencyMs")
    duration = timing.get("durationMs")
    if not (
        type(started) is str
        and started
        and _milliseconds(latency)
        and _milliseconds(duration)
        and duration >= latency  # type: ignore[operator]
    ):
        return False
    return ("signalAbortedAtMs" not in timing or _milliseconds(timing["signalAbortedAtMs"])) and (
        "disposeCalledAtMs" not in timing or _milliseconds(timing["disposeCalledAtMs"])
    )


def _outcome_fits(outcome: object, published: bool) -> bool:
    if type(outcome) is not dict:
        return False
    kind = outcome.get("kind")
    if kind == "result":
        if outcome.keys() != RESULT_OUTCOME_FIELDS or not _count(outcome["redactions"]):
            return False
        result = outcome["result"]
        return (
            published
            and type(result) is dict
            and type(result.get("stopReason")) is str
            and _blocks_fit(result.get("output"))
        )
    if kind != "start-error" and kind != "result-error":  # noqa: PLR1714 - two literals
        return False
    if outcome.keys() != ERROR_OUTCOME_FIELDS or published is (kind == "start-error"):
        return False
    error = outcome["error"]
    if type(error) is not dict or not error.keys() <= ERROR_FIELDS:
        return False
    name = error.get("name")
    return (
        type(name) is str
        and name != ""
        and type(error.get("message")) is str
        and ("code" not in error or type(error["code"]) is str)
    )


def interaction_fits(value: object, previous_hash: str) -> bool:
    """True when `value` plainly satisfies FMT-10 rules 1-9 after `previous_hash`."""
    if type(value) is not dict or value.keys() != INTERACTION_FIELDS:
        return False
    sequence = value["sequence"]
    occurrence = value["occurrence"]
    call_key = value["callKey"]
    parent_key = value["parentKey"]
    published = value["published"]
    local = value["local"]
    if not (
        value["kind"] == "cassette/interaction"
        and type(sequence) is int
        and 1 <= sequence <= _MAX_SAFE
        and type(occurrence) is int
        and 1 <= occurrence <= _MAX_SAFE
        and type(call_key) is str
        and call_key != ""
        and type(parent_key) is str
        and parent_key != ""
        and type(published) is bool
        and type(local) is bool
        and (published or not local)
        and value["previousHash"] == previous_hash
    ):
        return False
    return (
        is_digest(value["parentContextFingerprint"])
        and is_digest(value["requestFingerprint"])
        and is_digest(value["previousHash"])
        and is_digest(value["hash"])
        and _request_fits(value["request"])
        and _timing_fits(value["timing"])
        and _outcome_fits(value["outcome"], published)
    )


_CAPABILITY_KEYS = frozenset({"outputSchema", "depthLimit", "toolFilter", "persona"})
_PROVIDER_KEYS = frozenset({"cassette", "upstream", "capabilities", "inheritsParentContext"})


def _provider_fits(provider: object) -> bool:
    if type(provider) is not dict or provider.keys() != _PROVIDER_KEYS:
        return False
    capabilities = provider["capabilities"]
    return (
        type(provider["cassette"]) is str
        and provider["cassette"] != ""
        and type(provider["upstream"]) is str
        and provider["upstream"] != ""
        and type(provider["inheritsParentContext"]) is bool
        and type(capabilities) is dict
        and capabilities.keys() == _CAPABILITY_KEYS
        and all(type(flag) is bool for flag in capabilities.values())
    )


def header_fits(value: object) -> bool:
    """True when `value` plainly satisfies FMT-9 rules 1-17 (False: ask the ordered rules)."""
    if type(value) is not dict or value.keys() != HEADER_FIELDS:
        return False
    version = value["version"]
    created_at = value["createdAt"]
    target = value["target"]
    return (
        value["kind"] == HEADER_KIND
        and value["format"] == CASSETTE_FORMAT
        and type(version) is int
        and version == 1
        and type(value["cassetteId"]) is str
        and value["cassetteId"] != ""
        and type(created_at) is str
        and valid_created_at(created_at)
        and type(target) is dict
        and target == {"dshSubagent": TARGET_DSH_SUBAGENT}
        and _provider_fits(value["provider"])
        and value["requestStorage"] in ("metadata", "full")
        and type(value["redactSecrets"]) is bool
        and _names(value["redactionPatterns"])
        and is_digest(value["hash"])
    )
