"""One odd value ends its own call, never the recording (issue 26).

Each scenario records a good call, the odd one, and another good call into a `create`-mode
cassette: the odd call ends as a documented error (a `result-error` line, or a refusal at
start with a code), the good calls return and are recorded, dispose succeeds, the cassette is
committed, verifies and replays.
"""

from __future__ import annotations

import enum
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_format.errors import CassetteError
from cassette_format.records import ResultErrorOutcome, ResultOutcome
from cassette_provider import (
    CassetteRecordedError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from provider.support_provider import answer, labelled, prompt, run_to_end


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Code(enum.StrEnum):
    LIMIT = "rate_limited"


ODD_RESULTS: dict[str, object] = {
    "strenum-text": {"output": [{"type": "text", "text": Colour.RED}], "stopReason": "completed"},
    "strenum-stop-reason": {"output": [], "stopReason": Colour.RED},
    "intenum-member": {"output": [], "stopReason": "completed", "structured": {"n": Level.HIGH}},
    "strenum-key": {"output": [], "stopReason": "completed", "structured": {Colour.RED: 1}},
    "no-stop-reason": {"output": [{"type": "text", "text": "x"}]},
    "no-output": {"stopReason": "completed"},
    "bad-block": {"output": [{"type": "image"}], "stopReason": "completed"},
}
ROOT = SimpleAgent(session_id="root")


def _request(label: str, **fields: object) -> StartRequest:
    return labelled(label, ROOT, **fields)


@pytest.mark.parametrize("shape", sorted(ODD_RESULTS))
@pytest.mark.parametrize("storage", ["metadata", "full"])
async def test_an_odd_result_ends_only_its_own_call(
    tmp_path: Path, shape: str, storage: str
) -> None:
    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return ODD_RESULTS[shape] if request.label == "odd" else answer(request.label or "")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    path = tmp_path / "c.cassette.jsonl"
    config = RecordConfig(file=str(path), request_storage=storage)  # type: ignore[arg-type]
    handle = install_cassette(registry, config)
    assert await run_to_end(registry, _request("before")) == answer("before")
    with pytest.raises((TypeError, CassetteError)) as refused:
        await run_to_end(registry, _request("odd"))
    assert await run_to_end(registry, _request("after")) == answer("after")
    await handle.dispose()  # raised the odd call's write error before

    assert path.is_file()  # committed: the good calls are not left in a partial sibling
    assert verify_file(str(path))["interactions"] == 3
    kinds = [type(i.outcome) for i in load_cassette(str(path)).interactions]
    assert kinds == [ResultOutcome, ResultErrorOutcome, ResultOutcome]
    replay = ProviderRegistry()
    async with install_cassette(replay, ReplayConfig(file=str(path))):
        assert await run_to_end(replay, _request("before")) == answer("before")
        with pytest.raises(CassetteRecordedError) as recorded:
            await run_to_end(replay, _request("odd"))
        assert recorded.value.recorded_name == type(refused.value).__name__
        assert await run_to_end(replay, _request("after")) == answer("after")


@pytest.mark.parametrize(
    "fields",
    [
        {"prompt": "a string"},  # AttributeError: 'str' object has no attribute 'thaw'
        {"prompt": None},
        {"output_schema": "a string"},
        {"agent_options": [1]},
        {"persona": 5},
        {"max_depth": "deep"},
        {"label": 3},
    ],
    ids=lambda fields: next(iter(fields)),
)
async def test_a_request_the_format_refuses_is_refused_at_start(
    tmp_path: Path, fields: dict[str, object]
) -> None:
    """Full storage: a request FMT-11 refuses fails at start with a code, before the upstream."""
    started: list[str] = []

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        started.append(str(request.label))
        return answer(str(request.label))

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    path = tmp_path / "c.cassette.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path), request_storage="full"))
    assert await run_to_end(registry, _request("before")) == answer("before")
    odd = {"prompt": prompt("odd"), "parent": ROOT, "label": "odd", **fields}
    with pytest.raises(CassetteError) as refused:
        await run_to_end(registry, StartRequest(**odd))  # type: ignore[arg-type]
    assert refused.value.code == "CASSETTE_FORMAT"
    assert str(refused.value).startswith("subagent cassette request")
    assert await run_to_end(registry, _request("after")) == answer("after")
    await handle.dispose()
    assert started == ["before", "after"]
    assert verify_file(str(path))["interactions"] == 2


async def test_an_error_with_an_enum_code_is_recorded_as_plain_text(tmp_path: Path) -> None:
    """An upstream error whose `code`/`name` are StrEnums records their text (openai-style)."""

    class UpstreamError(Exception):
        code = Code.LIMIT
        name = Colour.RED

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        raise UpstreamError("slow down")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    path = tmp_path / "c.cassette.jsonl"
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    with pytest.raises(UpstreamError):
        await run_to_end(registry, _request("limited"))
    await handle.dispose()
    (interaction,) = load_cassette(str(path)).interactions
    assert isinstance(interaction.outcome, ResultErrorOutcome)
    error = interaction.outcome.error
    assert (type(error.name), type(error.code)) == (str, str)
    assert (error.name, error.code) == ("red", "rate_limited")
