"""Request and parent-context normalization (NORM-2, NORM-3, NORM-6..NORM-10)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Final

from cassette_topology import LiveParent
from cassette_topology.call_ids import stable_call_id
from returns.result import Failure, Result, Success

from cassette_provider.contract.agent import ParentAgent
from cassette_provider.contract.protocol import StartRequest
from cassette_provider.live.snapshot import (
    canonical_check,
    canonical_snapshot,
    snapshot,
    snapshot_object,
)

__all__ = [
    "Proved",
    "live_parent",
    "normalize_parent_context",
    "normalize_parent_context_text",
    "normalize_request",
    "normalize_request_text",
    "normalize_tool_filter",
]

_REQUEST_LOSSY: Final = "subagent cassette request is not lossless plain JSON"
_FILTER_KEYS: Final = ("allow", "deny")


def live_parent(parent: ParentAgent) -> LiveParent:
    """Topology's view of a parent: its id as a string and its origin."""
    return LiveParent(id=str(parent.id), origin=parent.origin)


def normalize_tool_filter(value: object) -> Result[dict[str, object], TypeError]:
    """Check a toolFilter: an object of only `allow`/`deny` string arrays (NORM-3)."""
    if not isinstance(value, dict):
        return Failure(TypeError("subagent cassette toolFilter must be an object"))
    for key in value:
        if key not in _FILTER_KEYS:
            return Failure(TypeError(f"subagent cassette toolFilter.{key} is not supported"))
    result: dict[str, object] = {}
    for field in _FILTER_KEYS:
        if field not in value:
            continue
        items = value[field]
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            return Failure(
                TypeError(f"subagent cassette toolFilter.{field} must be an array of strings")
            )
        result[field] = list(items)
    return Success(result)


#: A normalized value and, when proved, its canonical text (`canonical_snapshot`).
Proved = tuple[dict[str, object], bytes | None]


def normalize_request(request: StartRequest) -> Result[dict[str, object], TypeError]:
    """The fingerprinted request: label, prompt and the optional fields that are set (NORM-2)."""
    return normalize_request_text(request).map(_value)


def _value(proved: Proved) -> dict[str, object]:
    """The normalized value, without its text."""
    return proved[0]


def normalize_request_text(
    request: StartRequest, *, copied: bool = True
) -> Result[Proved, TypeError]:
    """`normalize_request` and, when one walk proves it, the request's canonical text.

    `copied=False`, for a caller that only hashes and reads the request at once and keeps
    nothing of it (a recording that stores metadata), checks it without copying it (the
    same verdict and text, `canonical_check`; issue 24).
    """
    candidate: dict[str, object] = {}
    if request.label is not None:
        candidate["label"] = request.label
    candidate["prompt"] = request.prompt
    optional = (
        ("agentOptions", request.agent_options),
        ("outputSchema", request.output_schema),
        ("maxDepth", request.max_depth),
        ("toolFilter", request.tool_filter),
        ("persona", request.persona),
    )
    for key, value in optional:
        if value is not None:
            candidate[key] = value
    proved = canonical_snapshot(candidate) if copied else canonical_check(candidate)
    lossless = proved.alt(lambda _: TypeError(_REQUEST_LOSSY))
    return lossless.bind(_with_tool_filter)


def _with_tool_filter(proved: Proved) -> Result[Proved, TypeError]:
    """The request with its tool filter normalized (NORM-4), when it has one.

    A valid filter normalizes to an equal object, so the request's canonical text stands.
    """
    normalized, text = proved
    if "toolFilter" not in normalized:
        return Success(proved)
    return normalize_tool_filter(normalized["toolFilter"]).map(
        lambda tool_filter: ({**normalized, "toolFilter": tool_filter}, text)
    )


def _event_list(events: object) -> list[object]:
    """The session events as a list; anything that holds no sequence of them is none (NORM-6)."""
    if isinstance(events, str | bytes | Mapping) or not isinstance(events, Iterable):
        return []
    return list(events)


def _field(event: object, key: str) -> object:
    """An event's member; an event that is no object has none (as a JavaScript primitive)."""
    return event.get(key) if isinstance(event, Mapping) else None


def _completed_prefix(events: Sequence[object]) -> Sequence[object]:
    """Events up to and including the last `turn/end`, by its seq (NORM-8)."""
    for event in reversed(events):
        if _field(event, "type") == "turn/end":
            seq = _field(event, "seq")
            return events[: seq + 1] if isinstance(seq, int) else []
    return []


def _latest_request_header(prefix: Sequence[object]) -> dict[str, object] | None:
    """`system`/`tools` of the latest request/header event; None when absent or lossy (GAP-24)."""
    for event in reversed(prefix):
        if _field(event, "type") != "request/header":
            continue
        data = _field(event, "data")
        header = data.get("header") if isinstance(data, Mapping) else None
        if not isinstance(header, Mapping):
            return {}
        candidate = {key: header[key] for key in ("system", "tools") if key in header}
        return snapshot_object(candidate).value_or(None)
    return None


def _event_message(event: Mapping[str, object]) -> object | None:
    """The model message an event projects to on the DSH surface, if any (NORM-9)."""
    kind = event.get("type")
    data = event.get("data")
    if kind == "user/message":
        return data
    if kind in {"assistant/message", "tool/result"} and isinstance(data, Mapping):
        message = data.get("message")
        if kind == "assistant/message" and isinstance(message, Mapping):
            content = message.get("content")
            if isinstance(content, list) and not content:
                return None
        return message
    return None


def _scrub(message: dict[str, object], ids: dict[str, str]) -> None:
    """Delete the message id and renumber call ids in pre-order (NORM-10)."""
    message.pop("id", None)
    source = message.get("source")
    if isinstance(source, dict) and source.get("kind") == "tool":
        call_id = source.get("callId")
        if isinstance(call_id, str):
            source["callId"] = stable_call_id(call_id, ids)
    content = message.get("content")
    blocks = list(reversed(content)) if isinstance(content, list) else []
    while blocks:
        block = blocks.pop()
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool-call" and isinstance(block.get("id"), str):
            block["id"] = stable_call_id(str(block["id"]), ids)
        elif block.get("type") == "tool-result":
            if isinstance(block.get("toolCallId"), str):
                block["toolCallId"] = stable_call_id(str(block["toolCallId"]), ids)
            nested = block.get("content")
            if isinstance(nested, list):
                blocks.extend(reversed(nested))


def _surface_nodes(prefix: Sequence[object]) -> list[int]:
    """Surface node seqs: `surfaceOp: "append"` adds one (replacements are not modelled)."""
    nodes: list[int] = []
    for event in prefix:
        seq = _field(event, "seq")
        if _field(event, "surfaceOp") == "append" and isinstance(seq, int):
            nodes.append(seq)
    return nodes


def _inherited_messages(
    prefix: Sequence[object],
) -> Result[list[object], TypeError]:
    """Completed-turn messages with ids scrubbed (NORM-9, NORM-10)."""
    ids: dict[str, str] = {}
    messages: list[object] = []
    for seq in _surface_nodes(prefix):
        event = prefix[seq] if 0 <= seq < len(prefix) else None
        if not isinstance(event, Mapping) or event.get("seq") != seq:
            return Failure(TypeError(f"parent context has no event at surface sequence {seq}"))
        message = _event_message(event)
        if message is None:
            continue
        value = snapshot_object(message).value_or(None)
        if value is None:
            return Failure(TypeError("parent context contains a non-JSON model message"))
        _scrub(value, ids)
        messages.append(value)
    return Success(messages)


def _session(parent: ParentAgent) -> dict[str, object]:
    """The defined session header facts among cwd, origin, delegationDepth, agentPreset."""
    facts = (
        ("cwd", parent.cwd),
        ("origin", parent.origin),
        ("delegationDepth", parent.delegation_depth),
        ("agentPreset", parent.agent_preset),
    )
    return {key: value for key, value in facts if value is not None}


def normalize_parent_context(
    parent: ParentAgent, inherits_parent_context: bool
) -> Result[dict[str, object], TypeError]:
    """What a child can observe of its parent, as plain JSON (NORM-7)."""
    return normalize_parent_context_text(parent, inherits_parent_context).map(_value)


def normalize_parent_context_text(
    parent: ParentAgent, inherits_parent_context: bool, *, copied: bool = True
) -> Result[Proved, TypeError]:
    """`normalize_parent_context` and, when one walk proves it, the context's canonical text.

    `copied=False`, for a caller that only hashes the context (the recorder, replay), checks
    it whole without copying it, the options included (the same verdict and text,
    `canonical_check`; issue 24); a refusal is then worded by the copying path, whose checks
    run in their order.
    """
    if copied:
        return _parent_context(parent, inherits_parent_context, copied=True)
    return _parent_context(parent, inherits_parent_context, copied=False).lash(
        lambda _: _parent_context(parent, inherits_parent_context, copied=True)
    )


def _parent_context(
    parent: ParentAgent, inherits_parent_context: bool, *, copied: bool
) -> Result[Proved, TypeError]:
    """The composed parent context; its options are copied first only if `copied`."""
    events = parent.events
    prefix = _completed_prefix(_event_list(events)) if inherits_parent_context else []
    header = _latest_request_header(prefix) if inherits_parent_context else None
    options = parent.options
    if copied and options is not None:
        options = snapshot(options).value_or(None)
    if options is None:
        return Failure(TypeError("parent Agent options are not lossless plain JSON"))
    composed = parent.composed_preset
    if composed is not None and not isinstance(composed, str):
        return Failure(TypeError("parent Agent composed preset is not a string"))
    composition: dict[str, object] = {}
    if composed is not None:
        composition["agentPreset"] = composed
    if header:
        composition.update(header)
    if parent.sandbox_mode is not None:
        composition["sandboxMode"] = parent.sandbox_mode
    if parent.has_approval:
        composition["approvalPolicy"] = "never"
    candidate: dict[str, object] = {"options": options, "session": _session(parent)}
    if composition:
        candidate["composition"] = composition
    if not inherits_parent_context:
        return _lossless_context(candidate, copied)
    return _inherited_messages(prefix).bind(
        lambda messages: _lossless_context({**candidate, "inheritedMessages": messages}, copied)
    )


def _lossless_context(candidate: dict[str, object], copied: bool) -> Result[Proved, TypeError]:
    """The composed parent context as plain JSON (a copy if `copied`), or the TypeError
    saying it is not."""
    proved = canonical_snapshot(candidate) if copied else canonical_check(candidate)
    return proved.alt(lambda _: TypeError("parent context is not lossless plain JSON"))
