"""Builders of valid headers and interaction bodies for the format tests."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

from cassette_format import (
    Capabilities,
    CassetteHeader,
    FullRequest,
    FullRequestView,
    InteractionBody,
    MetadataRequestView,
    Outcome,
    RecordedError,
    RequestMetadata,
    RequestStorage,
    ResultErrorOutcome,
    ResultOutcome,
    StartErrorOutcome,
    Timing,
    ToolFilter,
    create_header,
    header_line,
    interaction_line,
    seal_interaction,
)
from cassette_format.records.frozen_json import freeze_array, freeze_object
from hypothesis import strategies as st

CAPABILITIES = Capabilities(output_schema=True, depth_limit=True, tool_filter=False, persona=True)
FIXED_TIME = datetime(2026, 8, 18, 3, 0, 0, 123000, tzinfo=UTC)


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def make_header(
    storage: RequestStorage = "metadata", *, patterns: tuple[str, ...] = ()
) -> CassetteHeader:
    return create_header(
        cassette="cassette",
        upstream="spawn",
        capabilities=CAPABILITIES,
        inherits_parent_context=False,
        request_storage=storage,
        redact_secrets=True,
        redaction_patterns=patterns,
        cassette_id="00000000-0000-4000-8000-000000000001",
        created_at=FIXED_TIME,
    ).unwrap()


def outcome_for(kind: str, index: int) -> Outcome:
    if kind == "start-error":
        return StartErrorOutcome(RecordedError("Error", f"start failed {index}", "E_START"))
    if kind == "result-error":
        return ResultErrorOutcome(RecordedError("TypeError", f"bad result {index}"))
    return ResultOutcome(
        result=freeze_object(
            {
                "output": [
                    {"type": "reasoning", "text": "thinking…"},
                    {"type": "tool-call", "id": "c1", "name": "grep", "arguments": "{}"},
                    {
                        "type": "tool-result",
                        "toolCallId": "c1",
                        "content": [{"type": "text", "text": "日本語 😀 \u2028"}],
                        "isError": False,
                    },
                    {"type": "custom-block", "payload": {"𐀀": 1, "\uffff": 2.5}},
                    {"type": "text", "text": f"answer {index}"},
                ],
                "stopReason": ["completed", "max-tokens", "aborted", "weird"][index % 4],
                "usage": {"inputTokens": 10 + index, "ratio": 1e-7, "big": 1e21},
            }
        ),
        redactions=index % 2,
    )


def make_body(
    sequence: int,
    *,
    storage: RequestStorage = "metadata",
    kind: str = "result",
    parent_key: str = "root",
    occurrence: int = 1,
    request_tag: str | None = None,
) -> InteractionBody:
    tag = request_tag if request_tag is not None else f"request-{sequence}"
    request = (
        MetadataRequestView(
            RequestMetadata(
                prompt_blocks=1,
                prompt_bytes=40 + sequence,
                has_output_schema=False,
                has_persona=False,
                label="audit",
                max_depth=2,
                child_provider="deepseek",
                tool_filter=ToolFilter(allow=("read",)),
            )
        )
        if storage == "metadata"
        else FullRequestView(
            FullRequest(
                prompt=freeze_array([{"type": "text", "text": f"prompt {tag} é"}]),
                label="audit",
                agent_options=freeze_object({"model": "m", "temperature": 0.2}),
                max_depth=1,
                tool_filter=ToolFilter(deny=("bash",)),
                persona="terse",
            ),
            redactions=0,
        )
    )
    published = kind != "start-error"
    return InteractionBody(
        sequence=sequence,
        call_key=f"{parent_key}/audit-{digest(tag)[7:19]}~{occurrence}",
        parent_key=parent_key,
        parent_context_fingerprint=digest("parent"),
        occurrence=occurrence,
        request_fingerprint=digest(tag),
        request=request,
        timing=Timing(
            started_at="2026-08-18T03:00:00.000Z",
            start_latency_ms=1.5,
            duration_ms=10.25 + sequence,
            signal_aborted_at_ms=3.0 if sequence % 3 == 0 else None,
        ),
        published=published,
        local=published and sequence % 2 == 0,
        outcome=outcome_for(kind, sequence),
    )


def cassette_bytes(
    bodies: Sequence[InteractionBody], storage: RequestStorage = "metadata"
) -> bytes:
    """A valid cassette's bytes: the header, then each body sealed onto the chain in order."""
    header = make_header(storage)
    lines = [header_line(header).unwrap()]
    previous = header.hash
    for body in bodies:
        sealed = seal_interaction(body, previous).unwrap()
        lines.append(interaction_line(sealed).unwrap())
        previous = sealed.hash
    return b"".join(lines)


#: (sequence, call key number, request tag, occurrence, outcome kind, outcome variant)
LineSpec = tuple[int, int, str, int, str, int]


@st.composite
def line_specs(draw: st.DrawFn, kinds: Sequence[str] = ("result", "start-error")) -> list[LineSpec]:
    """A valid file's lines (any group sizes and line order), then maybe one defect.

    Lines of one request tag form one group; sequences and occurrences shuffle as calls
    complete out of order; the defect repeats a sequence, a call key or an occurrence.
    """
    tags = draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=9))
    counts: dict[str, int] = {}
    specs: list[LineSpec] = []
    for index, tag in enumerate(tags):
        counts[tag] = counts.get(tag, 0) + 1
        kind = draw(st.sampled_from(list(kinds)))
        specs.append((index + 1, index, tag, counts[tag], kind, draw(st.integers(0, 1))))
    specs = draw(st.permutations(specs))  # completion order: sequences and occurrences shuffle
    defect = draw(st.sampled_from(["none", "sequence", "call key", "occurrence"]))
    if defect != "none":
        at = draw(st.integers(0, len(specs) - 1))
        sequence, key, tag, occurrence, kind, outcome = specs[at]
        value = draw(st.integers(1, 4))
        if defect == "sequence":
            sequence = value
        elif defect == "call key":
            key = value
        else:
            occurrence = value
        specs[at] = (sequence, key, tag, occurrence, kind, outcome)
    return specs


def spec_bodies(
    specs: Sequence[LineSpec], storage: RequestStorage = "metadata"
) -> list[InteractionBody]:
    """The interaction bodies `line_specs` describes (call keys `key-<n>`)."""
    bodies = []
    for sequence, key, tag, occurrence, kind, outcome in specs:
        body = make_body(
            sequence, storage=storage, kind=kind, occurrence=occurrence, request_tag=tag
        )
        bodies.append(
            dataclasses.replace(body, call_key=f"key-{key}", outcome=outcome_for(kind, outcome))
        )
    return bodies
