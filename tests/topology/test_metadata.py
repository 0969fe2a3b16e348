"""The request metadata view (NORM-5) and its allowlist projection (DIAG-4)."""

from cassette_format.records import RequestMetadata, ToolFilter
from cassette_topology import project_metadata, request_metadata
from cassette_topology.errors import NOT_CANONICAL
from returns.result import Failure

NORM_4 = {"label": "audit", "prompt": [{"text": "prompt:audit", "type": "text"}]}


def test_reference_vector_prompt_bytes() -> None:  # NORM-5
    metadata = request_metadata(NORM_4).unwrap()
    assert metadata.to_json() == {
        "label": "audit",
        "promptBlocks": 1,
        "promptBytes": 39,
        "hasOutputSchema": False,
        "hasPersona": False,
    }


def test_presence_not_truthiness_decides_schema_and_persona() -> None:  # NORM-5
    metadata = request_metadata({"prompt": [], "outputSchema": None, "persona": None}).unwrap()
    assert (metadata.has_output_schema, metadata.has_persona) == (True, True)
    assert metadata.prompt_bytes == 2  # "[]"


def test_provider_and_model_only_from_an_object_with_strings() -> None:  # NORM-5
    as_array = request_metadata({"prompt": [], "agentOptions": ["deepseek"]}).unwrap()
    assert (as_array.child_provider, as_array.child_model) == (None, None)
    mixed = request_metadata({"prompt": [], "agentOptions": {"provider": 1, "model": "m"}})
    assert (mixed.unwrap().child_provider, mixed.unwrap().child_model) == (None, "m")


def test_tool_filter_keeps_only_string_array_sides() -> None:  # DIAG-4
    metadata = request_metadata(
        {"prompt": [], "toolFilter": {"allow": ["a", 1], "deny": ["b"], "extra": ["c"]}}
    ).unwrap()
    assert metadata.tool_filter == ToolFilter(allow=None, deny=("b",))
    assert metadata.to_json()["toolFilter"] == {"deny": ["b"]}
    assert request_metadata({"prompt": [], "toolFilter": "all"}).unwrap().tool_filter is None


def test_prompt_bytes_count_utf8_of_the_canonical_prompt() -> None:  # NORM-5
    metadata = request_metadata({"prompt": [{"type": "text", "text": "é漢\U0001f600"}]}).unwrap()
    # [{"text":"é漢😀","type":"text"}] = 27 ASCII bytes + 2 + 3 + 4
    assert metadata.prompt_bytes == 27 + 2 + 3 + 4


def test_non_canonical_prompt_is_refused() -> None:  # NORM-2
    refused = request_metadata({"prompt": [{"type": "text", "text": float("inf")}]})
    assert isinstance(refused, Failure)
    assert refused.failure().code == NOT_CANONICAL


def test_projection_rebuilds_every_allowlisted_field() -> None:  # DIAG-4
    stored = RequestMetadata(
        prompt_blocks=2,
        prompt_bytes=80,
        has_output_schema=True,
        has_persona=False,
        label="x",
        max_depth=3,
        child_provider="p",
        child_model="m",
        tool_filter=ToolFilter(allow=("read",)),
    )
    assert project_metadata(stored) == stored
    assert project_metadata(stored) is not stored
