"""Replay of nested recordings with default settings, and of empty cassettes (issue 12).

A child that starts its own child records a three-level tree; replay hands back the child's
recorded result without re-running it, so the grandchild's interaction is covered (MATCH-4
counts it as consumed) unless `strict_subtrees=True`. A header-only cassette is refused at
install with CASSETTE_EMPTY instead of failing later with a misleading mismatch.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cassette_format import load_cassette
from cassette_provider import (
    CassetteError,
    CassetteMismatchError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.replay.replayer import CASSETTE_EMPTY, CoveredCall, ReplayTally
from provider.support_provider import answer, prompt

GUARD_S = 30.0


async def _ask(registry: ProviderRegistry, parent: SimpleAgent, label: str) -> object:
    run = await registry.start(
        "cassette", StartRequest(prompt=prompt(f"task {label}"), parent=parent, label=label)
    )
    try:
        return await run.result
    finally:
        await run.dispose()


async def _record_nested(path: Path) -> None:
    """root -> review -> fact-check -> source, and root -> deploy (flat)."""
    registry = ProviderRegistry()
    nested = {"review": "fact-check", "fact-check": "source"}

    async def run(request: StartRequest, child: SimpleAgent) -> object:
        label = request.label or ""
        if label in nested:
            await _ask(registry, child, nested[label])
        return answer(f"done {label}")

    registry.register(FunctionProvider("spawn", run))
    async with install_cassette(registry, RecordConfig(file=str(path))):
        root = SimpleAgent(session_id="recording-root")
        await asyncio.gather(_ask(registry, root, "review"), _ask(registry, root, "deploy"))


async def _replay(path: Path, labels: tuple[str, ...], **config: object) -> ReplayTally:
    registry = ProviderRegistry()  # no upstream: replay never calls one
    handle = install_cassette(registry, ReplayConfig(file=str(path), **config))  # type: ignore[arg-type]
    root = SimpleAgent(session_id="replay-root")
    async with asyncio.timeout(GUARD_S):
        answers = await asyncio.gather(*(_ask(registry, root, label) for label in labels))
    assert answers == [answer(f"done {label}") for label in labels]
    tally = handle.replay_tally()
    assert tally is not None
    await handle.dispose()  # assert_consumed runs here unless switched off
    return tally


@pytest.fixture
def nested(tmp_path: Path) -> Path:
    path = tmp_path / "nested.cassette.jsonl"
    asyncio.run(_record_nested(path))
    return path


def test_the_recording_holds_the_true_tree(nested: Path) -> None:  # TOPO-5
    by_label = {
        item.request.metadata.label: item  # type: ignore[union-attr]
        for item in load_cassette(nested).interactions
    }
    assert by_label["review"].parent_key == "root"
    assert by_label["fact-check"].parent_key == by_label["review"].call_key
    assert by_label["source"].parent_key == by_label["fact-check"].call_key


async def test_default_replay_covers_the_subtree_of_a_delivered_child(nested: Path) -> None:
    keys = {
        item.request.metadata.label: item  # type: ignore[union-attr]
        for item in load_cassette(nested).interactions
    }
    tally = await _replay(nested, ("deploy", "review"))  # MATCH-4 with assert_consumed on
    assert tally.consumed == 2
    assert tally.remaining == 0
    assert set(tally.covered) == {  # physical order: source finished first
        CoveredCall(keys["fact-check"].call_key, keys["review"].call_key, "fact-check"),
        CoveredCall(keys["source"].call_key, keys["fact-check"].call_key, "source"),
    }


async def test_strict_subtrees_demands_a_live_call_for_every_nested_interaction(
    nested: Path,
) -> None:  # MATCH-4
    with pytest.raises(CassetteMismatchError) as refused:
        await _replay(nested, ("deploy", "review"), strict_subtrees=True)
    message = str(refused.value)
    assert message.startswith("2 cassette interaction(s) were not consumed: root/review-")
    assert "/fact-check-" in message
    assert "/source-" in message


async def test_an_undelivered_sibling_still_fails_the_default_check(nested: Path) -> None:
    with pytest.raises(CassetteMismatchError) as refused:
        await _replay(nested, ("review",))
    assert str(refused.value).startswith(
        "1 cassette interaction(s) were not consumed: root/deploy-"
    )


async def test_a_covered_call_is_not_reported_as_remaining_when_the_check_is_off(
    nested: Path,
) -> None:
    tally = await _replay(nested, ("review",), assert_consumed=False)
    assert (tally.consumed, len(tally.covered), tally.remaining) == (1, 2, 1)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_strict_subtrees_must_be_a_boolean(nested: Path, value: object) -> None:  # CONF-5
    registry = ProviderRegistry()
    with pytest.raises(CassetteError) as refused:
        install_cassette(registry, ReplayConfig(file=str(nested), strict_subtrees=value))  # type: ignore[arg-type]
    assert (refused.value.code, str(refused.value)) == (
        "INVALID_CONFIG",
        "strictSubtrees must be a boolean",
    )
    assert registry.get("cassette") is None


async def _record_nothing(path: Path) -> None:
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", lambda _request, _child: answer("unused")))
    async with install_cassette(registry, RecordConfig(file=str(path))):
        pass


async def test_an_empty_cassette_is_refused_at_install(tmp_path: Path) -> None:  # issue 12
    path = tmp_path / "empty.cassette.jsonl"
    await _record_nothing(path)
    assert load_cassette(path).interactions == ()  # it is a valid, header-only cassette
    registry = ProviderRegistry()
    for assert_consumed in (True, False):
        with pytest.raises(CassetteError) as refused:
            install_cassette(
                registry, ReplayConfig(file=str(path), assert_consumed=assert_consumed)
            )
        assert refused.value.code == CASSETTE_EMPTY
        message = str(refused.value)
        assert str(path) in message
        assert "made no subagent calls" in message
        assert "interrupted" in message
        assert registry.get("cassette") is None  # nothing was installed
