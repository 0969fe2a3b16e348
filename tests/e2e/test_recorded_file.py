"""A cassette recorded here verifies with cassette-format; GAP-15 local-child failures."""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_format.records import StartErrorOutcome
from cassette_provider import (
    ALL_CAPABILITIES,
    CassetteAmbiguityError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.contract.protocol import Capabilities, SubagentRun
from provider.support_provider import answer, prompt


async def test_recorded_cassette_verifies_with_header_facts(tmp_path: Path) -> None:  # FMT, CONF-4
    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return answer(str(request.label))

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, inherits_parent_context=True))
    path = tmp_path / "x-{pid}.cassette.jsonl"
    async with install_cassette(registry, RecordConfig(file=str(path))) as handle:
        for label in ("a", "b"):
            live = await registry.start(
                "cassette",
                StartRequest(prompt=prompt(label), parent=SimpleAgent(session_id="r"), label=label),
            )
            await live.result
            await live.dispose()
    assert "{pid}" not in handle.file
    summary = verify_file(handle.file)
    assert summary["interactions"] == 2
    header = load_cassette(handle.file).header
    assert (header.provider.cassette, header.provider.upstream) == ("cassette", "spawn")
    assert header.provider.inherits_parent_context is True
    assert header.provider.capabilities == ALL_CAPABILITIES
    assert header.request_storage == "metadata"


class _FixedChildProvider:
    """Publishes runs that all claim the same local agent, so the second remap fails."""

    def __init__(self) -> None:
        self.inner = FunctionProvider("spawn", self._run)
        self.child = SimpleAgent(session_id="same-child", origin="subagent")
        self.disposed = 0

    async def _run(self, request: StartRequest, _child: SimpleAgent) -> object:
        return answer(str(request.label))

    name = "spawn"
    capabilities: Capabilities = ALL_CAPABILITIES
    inherits_parent_context = False

    async def start(self, request: StartRequest) -> SubagentRun:
        run = await self.inner.start(request)
        outer = self

        class _Run:
            id = run.id
            local_agent = outer.child
            result = run.result

            async def dispose(self) -> None:
                outer.disposed += 1
                await run.dispose()

        return _Run()


async def test_local_child_remap_records_start_error_after_dispose(
    tmp_path: Path,
) -> None:  # PROV-6, GAP-15
    upstream = _FixedChildProvider()
    registry = ProviderRegistry()
    registry.register(upstream)
    path = tmp_path / "c.jsonl"
    root = SimpleAgent(session_id="r")
    async with install_cassette(registry, RecordConfig(file=str(path))):
        first = await registry.start(
            "cassette", StartRequest(prompt=prompt("a"), parent=root, label="a")
        )
        with pytest.raises(CassetteAmbiguityError, match="already mapped"):
            await registry.start(
                "cassette", StartRequest(prompt=prompt("b"), parent=root, label="b")
            )
        assert upstream.disposed == 1
        await first.result
        await first.dispose()
    outcomes = {i.call_key.split("/")[1][0]: i for i in load_cassette(path).interactions}
    assert isinstance(outcomes["b"].outcome, StartErrorOutcome)
    assert (outcomes["b"].published, outcomes["b"].local) == (False, False)
    assert outcomes["a"].local is True
