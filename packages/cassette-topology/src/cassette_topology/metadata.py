"""The allowlisted request metadata view: the only request facts a diagnostic may show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from cassette_canonical import canonical_json
from cassette_canonical.fast_path import sorted_text
from cassette_format.records import (
    MetadataRequestView,
    RequestMetadata,
    RequestView,
    ToolFilter,
)
from returns.result import Result, Success

from cassette_topology.errors import NOT_CANONICAL, TopologyError


def _string_array(value: object) -> tuple[str, ...] | None:
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return tuple(value)
    return None


def project_tool_filter(value: object) -> ToolFilter | None:
    """Keep only the string-array sides of a tool filter; a non-object gives none (DIAG-4)."""
    if isinstance(value, ToolFilter):
        return ToolFilter(allow=_string_array(value.allow), deny=_string_array(value.deny))
    if not isinstance(value, Mapping):
        return None
    return ToolFilter(
        allow=_string_array(value.get("allow")), deny=_string_array(value.get("deny"))
    )


def project_metadata(metadata: RequestMetadata) -> RequestMetadata:
    """A stored metadata view through the DIAG-4 allowlist: only its tool filter needs projecting.

    `RequestMetadata`'s fields are the allowlist (NORM-5); of the tool filter, DIAG-4 keeps
    only the sides that are string arrays.
    """
    return replace(metadata, tool_filter=project_tool_filter(metadata.tool_filter))


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _prompt_blocks(prompt: object) -> int:
    if isinstance(prompt, list | tuple):
        return len(prompt)
    # JS reads `.length`: a string prompt counts UTF-16 units, anything else has none.
    return _utf16_length(prompt) if isinstance(prompt, str) else 0


def request_metadata(
    request: Mapping[str, object], *, proved: bool = False
) -> Result[RequestMetadata, TopologyError]:
    """The metadata view of a normalized request (NORM-5), projected through DIAG-4.

    `promptBytes` is the UTF-8 length of the canonical prompt array; `hasOutputSchema` and
    `hasPersona` mean the member is present (a null counts); provider and model come only
    from an object `agentOptions` whose member is a string. `proved` says the request's
    canonical text is proved (the recorder's snapshot walk, CANON-8): every member of it is
    then plain JSON orjson writes canonically, so the prompt is written once by orjson, not
    by the exact writer (issue 24).
    """
    prompt = request.get("prompt", [])
    text = sorted_text(prompt) if proved else None
    if text is not None:
        return Success(_metadata(request, prompt, len(text)))
    return (
        canonical_json(prompt)
        .map(
            lambda prompt_text: _metadata(
                request, prompt, len(prompt_text.encode("utf-8", "surrogatepass"))
            )
        )
        .alt(
            lambda error: TopologyError(
                NOT_CANONICAL,
                "subagent cassette request is not lossless plain JSON",
                canonical_code=error.code,
            )
        )
    )


def _metadata(request: Mapping[str, object], prompt: object, prompt_bytes: int) -> RequestMetadata:
    """The metadata of `request` whose canonical prompt is `prompt_bytes` long."""
    options = request.get("agentOptions")
    option_map = options if isinstance(options, Mapping) else {}
    provider = option_map.get("provider")
    model = option_map.get("model")
    label = request.get("label")
    return RequestMetadata(
        label=label if isinstance(label, str) else None,
        prompt_blocks=_prompt_blocks(prompt),
        prompt_bytes=prompt_bytes,
        has_output_schema="outputSchema" in request,
        max_depth=_integer(request.get("maxDepth")),
        child_provider=provider if isinstance(provider, str) else None,
        child_model=model if isinstance(model, str) else None,
        tool_filter=project_tool_filter(request.get("toolFilter")),
        has_persona="persona" in request,
    )


#: Shown for a stored full request whose prompt cannot be canonicalized; a verified
#: cassette never has one, since every line was canonicalized to check its hash.
_UNAVAILABLE: RequestMetadata = RequestMetadata(0, 0, False, False)


def stored_request_metadata(view: RequestView) -> RequestMetadata:
    """Candidate metadata: the stored view, or derived from a stored full request (DIAG-4)."""
    if isinstance(view, MetadataRequestView):
        return project_metadata(view.metadata)
    return request_metadata(view.value.to_json()).value_or(_UNAVAILABLE)
