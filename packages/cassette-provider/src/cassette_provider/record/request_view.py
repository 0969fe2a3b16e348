"""The stored view of a recorded request: its metadata, or the redacted full request (PROV-3)."""

from __future__ import annotations

from typing import Final, TypeVar

from cassette_format.errors import format_error
from cassette_format.records import (
    FullRequest,
    FullRequestView,
    MetadataRequestView,
    RequestMetadata,
    RequestStorage,
    RequestView,
    ToolFilter,
)
from cassette_format.records.frozen_json import adopt_array, adopt_object
from cassette_format.rules.interaction import check_full_request, check_metadata
from cassette_format.write.line_room import request_room
from cassette_topology import request_metadata
from cassette_topology.exceptions import exception_for
from returns.result import Failure, Result, Success

from cassette_provider.contract.errors import provider_error
from cassette_provider.live.redact import Redactor

__all__ = ["REQUEST", "request_view"]

#: How the format's rules name a request they refuse before it is written.
REQUEST: Final = "subagent cassette request"
#: The most a redaction adds to the stored text: `"[REDACTED]"` (12 bytes with its quotes)
#: for a value at least 1 byte long, or `[REDACTED]` for a match (REDACT-2, REDACT-5).
_REDACTION_GROWTH: Final = 12
#: The full view's members around the request value (`redactions`, `storage`, `value`).
_FULL_VIEW_ROOM: Final = 64


_Kind = TypeVar("_Kind")


class _Unstorable(TypeError):
    """A full-request member of a type the stored request cannot hold."""

    def __init__(self, field: str, kind: str) -> None:
        super().__init__(f"subagent cassette request {field} cannot be stored: it is not {kind}")


def _member(data: dict[str, object], field: str, kind: type[_Kind], what: str) -> _Kind | None:
    """`data[field]` when absent (None) or of `kind`; otherwise _Unstorable is raised."""
    value = data.get(field)
    if value is None or isinstance(value, kind):
        return value
    raise _Unstorable(field, what)


def _depth(value: object) -> int | None:
    """maxDepth as the integer it is (an integral float counts), or _Unstorable."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise _Unstorable("maxDepth", "an integer")


def _tool_filter(value: object) -> ToolFilter | None:
    """The normalized tool filter (NORM-3 checked it: string arrays under allow/deny)."""
    if not isinstance(value, dict):
        return None
    allow, deny = value.get("allow"), value.get("deny")
    return ToolFilter(
        allow=tuple(str(name) for name in allow) if isinstance(allow, list) else None,
        deny=tuple(str(name) for name in deny) if isinstance(deny, list) else None,
    )


def _full_request(data: dict[str, object]) -> Result[FullRequest, TypeError]:
    """The typed full request over `data`'s own containers (adopted, never copied again)."""
    try:
        prompt = _member(data, "prompt", list, "an array")
        if prompt is None:
            raise _Unstorable("prompt", "an array")
        options = _member(data, "agentOptions", dict, "an object")
        schema = _member(data, "outputSchema", dict, "an object")
        request = FullRequest(
            prompt=adopt_array(prompt),
            label=_member(data, "label", str, "a string"),
            agent_options=None if options is None else adopt_object(options),
            output_schema=None if schema is None else adopt_object(schema),
            max_depth=_depth(data.get("maxDepth")),
            tool_filter=_tool_filter(data.get("toolFilter")),
            persona=_member(data, "persona", str, "a string"),
        )
    except _Unstorable as refused:
        return Failure(refused)
    return Success(request)


def _widened(error: Exception) -> Exception:
    return error


def _checked_metadata(metadata: RequestMetadata) -> Result[RequestMetadata, Exception]:
    return check_metadata(metadata.to_json(), REQUEST).map(lambda _: metadata).alt(format_error)


def _full_size_bound(text_size: int | None, redactions: int) -> int | None:
    """An upper bound of a full view's canonical size: the proved text, grown by redaction."""
    if text_size is None:
        return None
    return text_size + _REDACTION_GROWTH * redactions + _FULL_VIEW_ROOM


def request_view(
    body: dict[str, object],
    storage: RequestStorage,
    redactor: Redactor,
    *,
    proved: bool = False,
    text_size: int | None = None,
) -> Result[RequestView, Exception]:
    """The view the line stores; under "full" it redacts `body` in place (REDACT-7).

    Call it once `body` is fingerprinted: the full view owns `body` from then on. `proved`:
    `body`'s canonical text is proved (`normalize_request_text`), so its prompt's is too;
    `text_size` is that text's length in bytes. A view no line of the call could hold
    under the reader's line bound is refused here, before the call starts (PROV-3, FMT-3).
    """
    if storage == "metadata":
        # Issue 14: the stored label and names are redacted too (the file gets committed).
        return (
            request_metadata(body, proved=proved)
            .alt(exception_for)
            .map(redactor.redact_metadata)
            .bind(_checked_metadata)  # FMT-11 refused here (a negative maxDepth), not by the writer
            .map(lambda metadata: MetadataRequestView(metadata=metadata))
            .bind(lambda view: request_room(view, REQUEST).alt(format_error))
        )
    match redactor.redact(body, "prompt"):
        case Success((_, count)):
            checked: Result[None, Exception] = check_full_request(body, REQUEST).alt(format_error)
            bound = _full_size_bound(text_size, count)
            return (  # FMT-11 refused here, not by the writer
                checked.bind(lambda _: _full_request(body).alt(_widened))
                .map(lambda request: FullRequestView(value=request, redactions=count))
                .bind(lambda view: request_room(view, REQUEST, size_bound=bound).alt(format_error))
            )
        case Failure(problem):
            return Failure(provider_error(problem))
    raise AssertionError("a Result is a Success or a Failure")  # pragma: no cover
