"""FMT-10: an interaction's rules, with its request (FMT-11), timing (FMT-12), outcome (FMT-13).

Where FMT-10 lives: rules 1-9 one by one in the reference's order
(`check_interaction_in_order`, the first failure as a value with the reference's message),
the same rules accepted in one allocation-free pass for ordinary lines (`interaction_fits`,
from `rules.fast`; it only ever says "plainly valid" or "ask the ordered rules"), and
rule 10, the record's hash, is computed from the line's bytes by `_record_line.record_hash`
and compared where the line is read (`_chain`, beside the FMT-15/16 checks that follow).
Content blocks are FMT-14 (`content_blocks`). The ordered rules import `returns`, so
`cassette verify` loads this module only when a line is in doubt.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.records.constants import INTERACTION_KIND
from cassette_format.records.declare import wire_fields
from cassette_format.records.model import (
    CassetteInteraction,
    FullRequest,
    FullRequestView,
    MetadataRequestView,
    RecordedError,
    RequestMetadata,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
)
from cassette_format.rules.content_blocks import check_content_blocks
from cassette_format.rules.fast import interaction_fits, metadata_fits
from cassette_format.rules.leaf import (
    PASSED,
    Checked,
    an_object,
    closed,
    digest,
    fails,
    holds,
    non_empty_string,
    non_negative_finite,
    non_negative_integer,
    optional_string,
    positive_integer,
    string_list,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = [
    "check_full_request",
    "check_interaction",
    "check_interaction_in_order",
    "check_metadata",
    "check_result",
    "content_blocks",
    "interaction_fits",
]

JsonObject = Mapping[str, "JsonValue"]
# The closed member sets (FMT-6), derived from the declarations.
INTERACTION_FIELDS = wire_fields(CassetteInteraction)
METADATA_VIEW_FIELDS = wire_fields(MetadataRequestView)
FULL_VIEW_FIELDS = wire_fields(FullRequestView)
METADATA_FIELDS = wire_fields(RequestMetadata)
FULL_REQUEST_FIELDS = wire_fields(FullRequest)
TIMING_FIELDS = wire_fields(Timing)
RESULT_OUTCOME_FIELDS = wire_fields(ResultOutcome)
ERROR_OUTCOME_FIELDS = wire_fields(StartErrorOutcome)
ERROR_FIELDS = wire_fields(RecordedError)
TOOL_FILTER_FIELDS = wire_fields(ToolFilter)
_Rule = Callable[["JsonValue"], Result[object, FormatProblem]]


def _when_present(value: JsonObject, key: str, rule: _Rule) -> Result[object, FormatProblem]:
    """`rule` over member `key` when it is present (FMT-7: even when null)."""
    return rule(value[key]) if key in value else PASSED


def content_blocks(value: object, path: str) -> Checked:
    """FMT-14 as a Result, for the ordered checks."""
    problem = check_content_blocks(value, path)
    return PASSED if problem is None else Failure(problem)


def _tool_filter(value: object, path: str) -> Checked:
    return Result.do(
        None
        for tool_filter in an_object(value, f"{path} must be an object", path)
        for _ in closed(tool_filter, TOOL_FILTER_FIELDS, path)
        for _ in _names(tool_filter, "allow", path)
        for _ in _names(tool_filter, "deny", path)
    )


def _names(tool_filter: JsonObject, field: str, path: str) -> Checked:
    message = f"{path}.{field} must be an array of strings when present"
    if field in tool_filter:
        return string_list(tool_filter[field], message, f"{path}.{field}")
    return PASSED


def _two_booleans(
    value: JsonObject, first: str, second: str, message: str, path: str | None
) -> Checked:
    pair = isinstance(value.get(first), bool) and isinstance(value.get(second), bool)
    return holds(pair, message, path)


def check_metadata(value: object, path: str) -> Checked:
    """FMT-11's metadata view (`request.metadata`) alone, so a recorder refuses one early.

    The one-pass check first (issue 24); the ordered rules only on doubt.
    """
    if metadata_fits(value):
        return PASSED
    flags = f"{path}.hasOutputSchema and {path}.hasPersona must be booleans"
    return Result.do(
        None
        for metadata in an_object(value, f"{path} must be an object", path)
        for _ in closed(metadata, METADATA_FIELDS, path)
        for _ in optional_string(metadata, "label", path)
        for _ in non_negative_integer(metadata.get("promptBlocks"), path, ".promptBlocks")
        for _ in non_negative_integer(metadata.get("promptBytes"), path, ".promptBytes")
        for _ in _two_booleans(metadata, "hasOutputSchema", "hasPersona", flags, path)
        for _ in _when_present(
            metadata, "maxDepth", lambda depth: non_negative_integer(depth, path, ".maxDepth")
        )
        for _ in optional_string(metadata, "childProvider", path)
        for _ in optional_string(metadata, "childModel", path)
        for _ in _when_present(
            metadata, "toolFilter", lambda names: _tool_filter(names, f"{path}.toolFilter")
        )
    )


def _optional_object(value: JsonObject, key: str, path: str) -> Checked:
    if key in value and not isinstance(value[key], dict):
        return fails(f"{path}.{key} must be an object when present", f"{path}.{key}")
    return PASSED


def check_full_request(value: object, path: str) -> Checked:
    """FMT-11's full request (`request.value`) alone, so a recorder refuses one before writing."""
    return Result.do(
        None
        for request in an_object(value, f"{path} must be an object", path)
        for _ in closed(request, FULL_REQUEST_FIELDS, path)
        for _ in content_blocks(request.get("prompt"), f"{path}.prompt")
        for _ in optional_string(request, "label", path)
        for _ in _optional_object(request, "agentOptions", path)
        for _ in _optional_object(request, "outputSchema", path)
        for _ in _when_present(
            request, "maxDepth", lambda depth: non_negative_integer(depth, path, ".maxDepth")
        )
        for _ in _when_present(
            request, "toolFilter", lambda names: _tool_filter(names, f"{path}.toolFilter")
        )
        for _ in optional_string(request, "persona", path)
    )


def _request_view(request: JsonObject, path: str) -> Checked:
    storage = request.get("storage")
    if storage == "metadata":
        return closed(request, METADATA_VIEW_FIELDS, path).bind(
            lambda _: check_metadata(request.get("metadata"), f"{path}.metadata")
        )
    if storage == "full":
        return Result.do(
            None
            for _ in closed(request, FULL_VIEW_FIELDS, path)
            for _ in check_full_request(request.get("value"), f"{path}.value")
            for _ in non_negative_integer(request.get("redactions"), path, ".redactions")
        )
    return fails(f'{path}.storage must be "metadata" or "full"', f"{path}.storage")


def _request(value: object, path: str) -> Checked:
    """FMT-11."""
    return an_object(value, f"{path} must be an object", path).bind(
        lambda request: _request_view(request, path)
    )


def _timing(value: object, path: str) -> Checked:
    """FMT-12."""
    order = f"{path}.durationMs cannot be less than startLatencyMs"
    return Result.do(
        None
        for timing in an_object(value, f"{path} must be an object", path)
        for _ in closed(timing, TIMING_FIELDS, path)
        for _ in non_empty_string(timing.get("startedAt"), path, ".startedAt")
        for latency in non_negative_finite(timing.get("startLatencyMs"), path, ".startLatencyMs")
        for duration in non_negative_finite(timing.get("durationMs"), path, ".durationMs")
        for _ in holds(duration >= latency, order, path)
        for _ in _when_present(
            timing,
            "signalAbortedAtMs",
            lambda ms: non_negative_finite(ms, path, ".signalAbortedAtMs"),
        )
        for _ in _when_present(
            timing,
            "disposeCalledAtMs",
            lambda ms: non_negative_finite(ms, path, ".disposeCalledAtMs"),
        )
    )


def _message_text(error: JsonObject, path: str) -> Checked:
    is_text = isinstance(error.get("message"), str)
    return holds(is_text, f"{path}.message must be a string", f"{path}.message")


def _recorded_error(value: object, path: str) -> Checked:
    return Result.do(
        None
        for error in an_object(value, f"{path} must be an object", path)
        for _ in closed(error, ERROR_FIELDS, path)
        for _ in non_empty_string(error.get("name"), path, ".name")
        for _ in _message_text(error, path)
        for _ in optional_string(error, "code", path)
    )


def check_result(result: object, path: str) -> Checked:
    """FMT-13's result (`outcome.result`) alone, so a recorder refuses one before writing."""
    if (
        isinstance(result, dict)
        and isinstance(result.get("output"), list)
        and isinstance(result.get("stopReason"), str)
    ):
        return content_blocks(result["output"], f"{path}.output")
    return fails(f"{path} must contain output[] and stopReason", path)


def _outcome_kind(outcome: JsonObject, path: str) -> Checked:
    kind = outcome.get("kind")
    if kind in ("start-error", "result-error"):
        return closed(outcome, ERROR_OUTCOME_FIELDS, path).bind(
            lambda _: _recorded_error(outcome.get("error"), f"{path}.error")
        )
    if kind != "result":
        return fails(f"{path}.kind is unsupported", f"{path}.kind")
    return Result.do(
        None
        for _ in closed(outcome, RESULT_OUTCOME_FIELDS, path)
        for _ in non_negative_integer(outcome.get("redactions"), path, ".redactions")
        for _ in check_result(outcome.get("result"), f"{path}.result")
    )


def _outcome(value: object, path: str) -> Checked:
    """FMT-13."""
    return an_object(value, f"{path} must be an object", path).bind(
        lambda outcome: _outcome_kind(outcome, path)
    )


def _publication(record: JsonObject, p: str) -> Checked:
    """FMT-10 rule 7 (rule 5 made both flags booleans, rule 6 the outcome an object)."""
    published = record.get("published")
    outcome = record.get("outcome")
    kind = outcome.get("kind") if isinstance(outcome, dict) else None
    if kind == "start-error" and published is not False:
        return fails(f"{p} start-error must be unpublished")
    if kind != "start-error" and published is not True:
        return fails(f"{p} post-publication outcome must be published")
    return holds(
        record.get("local") is not True or published is True,
        f"{p} an unpublished interaction cannot be local",
    )


def _interaction(value: object, p: str) -> Result[JsonObject, FormatProblem]:
    """FMT-10 rule 1: an object whose kind is cassette/interaction."""
    if isinstance(value, dict) and value.get("kind") == INTERACTION_KIND:
        return Success(value)
    return Failure(FormatProblem(f"{p} is not a cassette interaction"))


def _flags(record: JsonObject, p: str) -> Checked:
    """FMT-10 rule 5."""
    message = f"{p}.published and {p}.local must be booleans"
    return _two_booleans(record, "published", "local", message, None)


def _chained(record: JsonObject, previous_hash: str, p: str) -> Checked:
    """FMT-10 rule 9."""
    linked = record.get("previousHash") == previous_hash
    return holds(linked, f"{p} hash chain points to the wrong previous record")


def _rules_1_to_9(
    value: object, line: int, previous_hash: str
) -> Result[JsonObject, FormatProblem]:
    p = f"line {line}"
    return Result.do(
        record
        for record in _interaction(value, p)
        for _ in closed(record, INTERACTION_FIELDS, p)
        for _ in positive_integer(record.get("sequence"), p, ".sequence")
        for _ in non_empty_string(record.get("callKey"), p, ".callKey")
        for _ in non_empty_string(record.get("parentKey"), p, ".parentKey")
        for _ in digest(record.get("parentContextFingerprint"), p, ".parentContextFingerprint")
        for _ in positive_integer(record.get("occurrence"), p, ".occurrence")
        for _ in digest(record.get("requestFingerprint"), p, ".requestFingerprint")
        for _ in _request(record.get("request"), f"{p}.request")
        for _ in _timing(record.get("timing"), f"{p}.timing")
        for _ in _flags(record, p)
        for _ in _outcome(record.get("outcome"), f"{p}.outcome")
        for _ in _publication(record, p)
        for _ in digest(record.get("previousHash"), p, ".previousHash")
        for _ in digest(record.get("hash"), p, ".hash")
        for _ in _chained(record, previous_hash, p)
    )


def check_interaction_in_order(
    value: object, line: int, previous_hash: str
) -> Result[JsonObject, FormatProblem]:
    """FMT-10 rules 1-9 one by one in the reference's order: the mapping, or the first failure.

    Every failure names `line`.
    """
    return _rules_1_to_9(value, line, previous_hash).alt(lambda problem: problem.at_line(line))


def check_interaction(
    value: object, line: int, previous_hash: str
) -> Result[JsonObject, FormatProblem]:
    """FMT-10 rules 1-9 (the hash is the caller's): the one-pass check, ordered on doubt."""
    if isinstance(value, dict) and interaction_fits(value, previous_hash):
        return Success(value)
    return check_interaction_in_order(value, line, previous_hash)
