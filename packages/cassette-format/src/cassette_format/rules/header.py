"""FMT-9: the header's closed schema, rule by rule in the reference's order (D-3 createdAt).

`check_header` returns the header mapping or the first failure as a value naming line 1;
the hash comparison (FMT-9 rule 18) is the caller's, since it needs the line's bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from returns.result import Result

from cassette_format.problem import FormatProblem
from cassette_format.records.constants import CASSETTE_FORMAT, HEADER_KIND, TARGET_DSH_SUBAGENT
from cassette_format.records.declare import members, wire_fields
from cassette_format.records.model import Capabilities, CassetteHeader, ProviderFacts
from cassette_format.rules.leaf import (
    PASSED,
    Checked,
    an_object,
    boolean,
    closed,
    digest,
    fails,
    holds,
    is_number,
    non_empty_string,
    string_list,
)
from cassette_format.text.created_at import valid_created_at
from cassette_format.text.js import js_string

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["check_header"]

# The closed member sets (FMT-6), derived from the declarations; capabilities in order.
HEADER_FIELDS = wire_fields(CassetteHeader)
PROVIDER_FIELDS = wire_fields(ProviderFacts)
CAPABILITY_FIELDS = tuple(item.wire for item in members(Capabilities))
_CAPABILITY_SET = frozenset(CAPABILITY_FIELDS)
_TARGET_FIELDS = frozenset({"dshSubagent"})
_CAPS = "header.provider.capabilities"

JsonObject = Mapping[str, "JsonValue"]


def _kind(header: JsonObject) -> Checked:
    return holds(header.get("kind") == HEADER_KIND, "line 1 is not a cassette header")


def _format(header: JsonObject) -> Checked:
    if header.get("format") == CASSETTE_FORMAT:
        return PASSED
    shown = js_string(header.get("format"), present="format" in header)
    return fails(f'unsupported cassette format "{shown}"', "header.format")


def _version(header: JsonObject) -> Checked:
    version = header.get("version")
    if is_number(version) and version == 1:
        return PASSED
    shown = js_string(version, present="version" in header)
    return fails(f"unsupported cassette schema version {shown}", "header.version")


def _created_at(header: JsonObject) -> Checked:
    return non_empty_string(header.get("createdAt"), "header.createdAt").bind(
        lambda text: holds(
            valid_created_at(text), "header.createdAt must be an ISO timestamp", "header.createdAt"
        )
    )


def _target(header: JsonObject) -> Checked:
    target = header.get("target")
    if isinstance(target, dict) and target.get("dshSubagent") == TARGET_DSH_SUBAGENT:
        return closed(target, _TARGET_FIELDS, "header.target")
    shown = (
        "undefined"
        if not isinstance(target, dict)
        else js_string(target.get("dshSubagent"), present="dshSubagent" in target)
    )
    message = f"cassette targets @deepseek-ai/dsh-subagent {shown}, expected {TARGET_DSH_SUBAGENT}"
    return fails(message, "header.target")


def _capabilities(provider: JsonObject) -> Checked:
    return an_object(provider.get("capabilities"), f"{_CAPS} must be an object", _CAPS).bind(
        lambda capabilities: closed(capabilities, _CAPABILITY_SET, _CAPS).bind(
            lambda _: _capability_flags(capabilities)
        )
    )


def _capability_flags(capabilities: JsonObject) -> Checked:
    for key in CAPABILITY_FIELDS:
        if not isinstance(capabilities.get(key), bool):
            return fails(f"{_CAPS}.{key} must be a boolean", f"{_CAPS}.{key}")
    return PASSED


def _provider(header: JsonObject) -> Checked:
    path = "header.provider"
    return Result.do(
        None
        for provider in an_object(header.get("provider"), f"{path} must be an object", path)
        for _ in closed(provider, PROVIDER_FIELDS, path)
        for _ in non_empty_string(provider.get("cassette"), f"{path}.cassette")
        for _ in non_empty_string(provider.get("upstream"), f"{path}.upstream")
        for _ in _capabilities(provider)
        for _ in boolean(
            provider.get("inheritsParentContext"),
            f"{path}.inheritsParentContext must be a boolean",
            f"{path}.inheritsParentContext",
        )
    )


def _storage_policy(header: JsonObject) -> Checked:
    return holds(
        header.get("requestStorage") in ("metadata", "full"),
        'header.requestStorage must be "metadata" or "full"',
        "header.requestStorage",
    )


def _header_rules(value: object) -> Result[JsonObject, FormatProblem]:
    return Result.do(
        header
        for header in an_object(value, "line 1 must be a cassette header object")
        for _ in _kind(header)
        for _ in closed(header, HEADER_FIELDS, "header")
        for _ in _format(header)
        for _ in _version(header)
        for _ in non_empty_string(header.get("cassetteId"), "header.cassetteId")
        for _ in _created_at(header)
        for _ in _target(header)
        for _ in _provider(header)
        for _ in _storage_policy(header)
        for _ in boolean(
            header.get("redactSecrets"),
            "header.redactSecrets must be a boolean",
            "header.redactSecrets",
        )
        for _ in string_list(
            header.get("redactionPatterns"),
            "header.redactionPatterns must be an array of strings",
            "header.redactionPatterns",
        )
        for _ in digest(header.get("hash"), "header.hash")
    )


def _on_line_1(problem: FormatProblem) -> FormatProblem:
    return problem.at_line(1)


def check_header(value: object) -> Result[JsonObject, FormatProblem]:
    """FMT-9 rules 1-17 (the hash comparison is the caller's): the header mapping, or why not."""
    return _header_rules(value).alt(_on_line_1)
