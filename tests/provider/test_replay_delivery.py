"""What a replayed run hands its caller (REPLAY-5): its own result, settled at once when instant.

Issue 24: the lazy reader decodes a line for each delivery, so replay hands that result over
without a copy; a loaded cassette's interactions are shared, so their results are thawed.
Either way a caller that changes its result changes nobody else's. With nothing left to
wait, the result settles when the run is made, as REPLAY-3 has it for a zero delay.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from pathlib import Path

import pytest
from cassette_format import load_cassette
from cassette_format.records import ResultOutcome
from cassette_provider import (
    AbortController,
    CassetteRecordedError,
    ProviderRegistry,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.contract.sessions import NO_MODEL_SESSIONS
from cassette_provider.replay.replayer import ReplayProvider
from cassette_topology import InteractionMatcher
from provider.support_provider import answer, prompt, record_labels


def _request(label: str, parent: SimpleAgent, signal: object = None) -> StartRequest:
    return StartRequest(prompt=prompt(label), parent=parent, label=label, signal=signal)  # type: ignore[arg-type]


def _spoil(result: object) -> None:
    """Change a delivered result every way a caller might: a member and a nested block."""
    assert isinstance(result, dict)
    result["stopReason"] = "changed by the caller"
    result["output"][0]["text"] = "changed by the caller"
    result["output"].append({"type": "text", "text": "added by the caller"})


async def test_each_call_replayed_from_the_file_gets_its_own_result(tmp_path: Path) -> None:
    # REPLAY-5: a detached copy per delivery, though the lazy reader's is handed over as is
    path = tmp_path / "twice.cassette.jsonl"
    await record_labels(path, ("same", "same"))
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path), duplicate_policy="sequence"))
    parent = SimpleAgent()
    first = await registry.start("cassette", _request("same", parent))
    delivered = await first.result
    assert await first.result is delivered  # one result per run, however often awaited
    _spoil(delivered)
    second = await registry.start("cassette", _request("same", parent))
    assert await second.result == answer("recorded answer for same")


async def test_a_loaded_cassette_hands_out_copies_and_keeps_its_own(tmp_path: Path) -> None:
    # REPLAY-5 over loaded interactions (shared with the cassette): each caller gets a thaw
    path = tmp_path / "one.cassette.jsonl"
    await record_labels(path, ("alpha",))
    cassette = load_cassette(path)
    results = []
    for _ in range(2):
        matcher = InteractionMatcher.build(cassette).unwrap()
        assert not matcher.delivers_copies
        provider = ReplayProvider(
            name="cassette", header=cassette.header, matcher=matcher, sessions=NO_MODEL_SESSIONS
        )
        live = await provider.start(_request("alpha", SimpleAgent()))
        results.append(await live.result)
        _spoil(results[-1])
    assert results[0] is not results[1]
    outcome = cassette.interactions[0].outcome
    assert isinstance(outcome, ResultOutcome)
    assert outcome.result == answer("recorded answer for alpha")


async def test_an_instant_result_is_settled_when_the_run_is_made(tmp_path: Path) -> None:
    # REPLAY-3: a zero delay elapses at once, so a later dispose or abort cannot change it
    path = tmp_path / "one.cassette.jsonl"
    await record_labels(path, ("alpha", "beta"))
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path)))
    parent = SimpleAgent()
    disposed = await registry.start("cassette", _request("alpha", parent))
    assert isinstance(disposed.result, asyncio.Future)
    assert disposed.result.done()
    await disposed.dispose()
    await disposed.dispose()
    assert await disposed.result == answer("recorded answer for alpha")
    controller = AbortController()
    aborted = await registry.start("cassette", _request("beta", parent, controller.signal))
    controller.abort()
    assert await aborted.result == answer("recorded answer for beta")


async def test_the_run_id_names_the_interaction_and_stays_the_same(tmp_path: Path) -> None:
    # REPLAY-5: cassette-<sequence>-<first 12 hex of requestFingerprint>-<uuid4>
    path = tmp_path / "one.cassette.jsonl"
    await record_labels(path, ("alpha",))
    interaction = load_cassette(path).interactions[0]
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path)))
    live = await registry.start("cassette", _request("alpha", SimpleAgent()))
    digest = interaction.request_fingerprint.removeprefix("sha256:")[:12]
    uuid4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
    pattern = rf"cassette-{interaction.sequence}-{digest}-{uuid4}"
    assert re.fullmatch(pattern, live.id)
    assert live.id == live.id


async def test_a_recorded_error_nobody_awaits_logs_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # REPLAY-6: the settled error is raised to whoever awaits it, and left quiet otherwise
    path = tmp_path / "fails.cassette.jsonl"
    await record_labels(path, ("alpha", "beta"), fail=True)
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path)))
    parent = SimpleAgent()
    awaited = await registry.start("cassette", _request("alpha", parent))
    with pytest.raises(CassetteRecordedError, match="upstream failed"):
        await awaited.result
    ignored = await registry.start("cassette", _request("beta", parent))
    await ignored.dispose()
    with caplog.at_level(logging.ERROR, logger="asyncio"):
        del ignored
        gc.collect()
        await asyncio.sleep(0)
    assert not [record for record in caplog.records if "never retrieved" in record.getMessage()]
