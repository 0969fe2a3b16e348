"""A result adopted with its proved canonical text seals to the very line the writer would
write by serializing it (issue 24: the text is put in the line as it is, WRITE-7)."""

from __future__ import annotations

import dataclasses
from typing import Any

from cassette_canonical import JsonValue, canonical_bytes
from cassette_format.records import FullRequestView, ResultOutcome
from cassette_format.records.frozen_json import (
    FrozenObject,
    adopt_canonical,
    adopt_object,
    canonical_text,
    freeze_object,
)
from cassette_format.write.seal import seal_body
from hypothesis import given
from hypothesis import strategies as st
from support.strategies import json_strings

from format.builders import make_body

_PREVIOUS = "sha256:" + "3" * 64


def _sealed(result: Any) -> Any:
    body = dataclasses.replace(make_body(1), outcome=ResultOutcome(result=result, redactions=0))
    return seal_body(body, _PREVIOUS).unwrap()


@given(st.lists(json_strings(), max_size=4), st.sampled_from([0.5, 12, -3, 1e-7, 1e21]))
def test_a_line_sealed_around_a_proved_result_is_byte_identical(
    texts: list[str], number: float
) -> None:  # WRITE-7
    result: dict[str, JsonValue] = {
        "output": [{"type": "text", "text": text} for text in texts],
        "stopReason": "completed",
        "usage": {"inputTokens": number, "ключ": "值"},
    }
    text = canonical_bytes(result).unwrap()
    proved = adopt_canonical(dict(result), text)
    assert canonical_text(proved) == text
    assert canonical_text(adopt_object(dict(result))) is None
    plain, by_text = _sealed(adopt_object(dict(result))), _sealed(proved)
    assert by_text.line == plain.line
    assert by_text.interaction == plain.interaction


def test_a_record_around_the_result_that_is_not_canonical_takes_the_exact_path() -> None:
    result: dict[str, JsonValue] = {"output": [], "stopReason": "completed"}
    body = dataclasses.replace(
        make_body(1),
        outcome=ResultOutcome(
            result=adopt_canonical(dict(result), canonical_bytes(result).unwrap()), redactions=0
        ),
    )
    timing = dataclasses.replace(body.timing, duration_ms=2.0)  # integral: orjson writes 2.0
    sealed = seal_body(dataclasses.replace(body, timing=timing), _PREVIOUS).unwrap()
    assert b'"durationMs":2,' in sealed.line


def test_a_record_orjson_cannot_write_around_a_proved_result_takes_the_exact_path() -> None:
    # WRITE-7: agent options nested past orjson's depth limit; the line is the exact writer's.
    nested: dict[str, JsonValue] = {"leaf": 1}
    for _ in range(300):
        nested = {"next": nested}
    result: dict[str, JsonValue] = {"output": [], "stopReason": "completed"}
    body = make_body(1, storage="full")
    view = body.request
    assert isinstance(view, FullRequestView)
    request = dataclasses.replace(view.value, agent_options=freeze_object(nested))
    deep = dataclasses.replace(body, request=dataclasses.replace(view, value=request))

    def sealed(outcome_result: FrozenObject) -> bytes:
        outcome = ResultOutcome(result=outcome_result, redactions=0)
        return seal_body(dataclasses.replace(deep, outcome=outcome), _PREVIOUS).unwrap().line

    proved = adopt_canonical(dict(result), canonical_bytes(result).unwrap())
    assert sealed(proved) == sealed(adopt_object(dict(result)))
