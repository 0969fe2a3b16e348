"""Volatile-id normalization of model requests before they are compared for binding.

Tool-call ids are minted per run (by the model or the SDK), so two runs of the same session
ask the same thing with different ids. As for parent context (NORM-10), every such id is
renumbered `call-<n>` by first appearance, so equal requests get equal binding fingerprints.
The walk is depth-first with object keys in canonical (UTF-16 code-unit) order, so a request
read back from a canonical log numbers its ids exactly as the live request did. One more
value is minted per run: `prompt_cache_key` (openai-agents sends `agents-sdk:run:<random
hex>` in every model request body), a caching hint that never changes an answer; its string
value is replaced by one placeholder. Every other value is kept as it is.
"""

from __future__ import annotations

from typing import Final

from cassette_canonical import JsonValue, canonical_json, fingerprint, parse_json, utf16_sort_key
from cassette_format.problem import FormatProblem
from returns.result import Result

from cassette_topology.call_ids import stable_call_id
from cassette_topology.sessions.errors import SESSION_REQUEST_INVALID

#: Keys whose string value refers to a tool call by id (OpenAI, DSH surface, Anthropic).
_REFERENCE_KEYS: Final = frozenset(
    {"tool_call_id", "toolCallId", "callId", "call_id", "tool_use_id"}
)
#: `type` values of objects whose own `id` is a tool-call id.
_CALL_TYPES: Final = frozenset({"function", "tool-call", "tool_use", "function_call"})
#: Keys whose string value is a per-run caching hint, compared as one placeholder.
_HINT_KEYS: Final = frozenset({"prompt_cache_key"})
_HINT_PLACEHOLDER: Final = "volatile"
_INVALID: Final = FormatProblem(
    "a model request is not lossless canonical JSON", code=SESSION_REQUEST_INVALID
)


def _is_call(value: dict[str, JsonValue]) -> bool:
    """Whether an object is a tool call, whose own `id` is then volatile."""
    kind = value.get("type")
    return isinstance(kind, str) and kind in _CALL_TYPES


def _scrub_in_place(value: dict[str, JsonValue], ids: dict[str, str]) -> list[JsonValue]:
    """Renumber one object's own ids in place; answer its nested values in key order."""
    nested: list[JsonValue] = []
    is_call = _is_call(value)
    for key in sorted(value, key=utf16_sort_key):
        item = value[key]
        if isinstance(item, str) and (key in _REFERENCE_KEYS or (is_call and key == "id")):
            value[key] = stable_call_id(item, ids)
        elif isinstance(item, str) and key in _HINT_KEYS:
            value[key] = _HINT_PLACEHOLDER
        elif isinstance(item, dict | list):
            nested.append(item)
    return nested


def normalize_volatile_ids(request: JsonValue) -> Result[JsonValue, FormatProblem]:
    """A copy of `request` with tool-call ids renumbered by first appearance (depth-first)
    and each `prompt_cache_key` string replaced by one placeholder.

    The copy comes from a canonical round trip (so keys are in canonical order) and the walk
    is iterative (an explicit stack), so deep requests cannot exhaust the stack.
    """
    return canonical_json(request).bind(parse_json).alt(lambda _: _INVALID).map(_renumber_copy)


def _renumber_copy(root: JsonValue) -> JsonValue:
    """Renumber, in place, the tool-call ids of a private copy, depth-first in key order."""
    ids: dict[str, str] = {}
    stack: list[JsonValue] = [root]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            nested = _scrub_in_place(value, ids)
        elif isinstance(value, list):
            nested = [item for item in value if isinstance(item, dict | list)]
        else:
            continue
        stack.extend(reversed(nested))
    return root


def has_volatile_ids(request: JsonValue) -> bool:
    """Whether normalization would change anything (an iterative scan, no copy)."""
    stack: list[JsonValue] = [request]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(item for item in value if isinstance(item, dict | list))
        elif isinstance(value, dict):
            is_call = _is_call(value)
            for key, item in value.items():
                if isinstance(item, str) and (
                    key in _REFERENCE_KEYS or key in _HINT_KEYS or (is_call and key == "id")
                ):
                    return True
                if isinstance(item, dict | list):
                    stack.append(item)
    return False


def binding_fingerprint(request: JsonValue) -> Result[str, FormatProblem]:
    """The fingerprint of a request after volatile-id normalization (what binding compares)."""
    return request_fingerprints(request).map(lambda pair: pair[1])


def request_fingerprints(request: JsonValue) -> Result[tuple[str, str], FormatProblem]:
    """The exact and the normalized fingerprint; one digest when there is nothing to renumber."""
    exact = fingerprint(request).alt(lambda _: _INVALID)
    if not has_volatile_ids(request):
        return exact.map(lambda digest: (digest, digest))
    return exact.bind(
        lambda digest: normalize_volatile_ids(request).bind(
            lambda normalized: (
                fingerprint(normalized).alt(lambda _: _INVALID).map(lambda other: (digest, other))
            )
        )
    )
