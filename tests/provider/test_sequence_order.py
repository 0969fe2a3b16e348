"""Sequences are taken as lines are written, so a recording cut mid-flight stays loadable.

Issue 12: with sequences reserved at admission, a process killed while an early call was still
running left `cassette is missing sequence 1` behind and nothing could load the file. Here the
file is read while calls are still in flight, exactly what a SIGKILL at that moment leaves.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from cassette_format import CassetteInteraction, MetadataRequestView, load_cassette, verify_file
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from provider.support_provider import answer, prompt

LABELS = ("first", "second", "third")


def _label(item: CassetteInteraction) -> str | None:
    """The recorded label; these recordings store request metadata, not full requests."""
    assert isinstance(item.request, MetadataRequestView)
    return item.request.metadata.label


async def test_a_file_read_with_calls_in_flight_is_contiguous(tmp_path: Path) -> None:
    path = tmp_path / "inflight.cassette.jsonl"
    release = {label: asyncio.Event() for label in LABELS}

    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        assert request.label is not None
        await release[request.label].wait()
        return answer(request.label)

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    # append writes in place, so the file on disk is what a kill at this moment leaves
    handle = install_cassette(registry, RecordConfig(file=str(path), write_mode="append"))
    parent = SimpleAgent(session_id="root")
    runs = {
        label: await registry.start(
            "cassette", StartRequest(prompt=prompt(label), parent=parent, label=label)
        )
        for label in LABELS
    }
    for label in ("third", "second"):  # the last admitted ends first; "first" stays running
        release[label].set()
        await runs[label].result

    midway = load_cassette(path)
    assert [item.sequence for item in midway.interactions] == [1, 2]
    assert [_label(item) for item in midway.interactions] == ["third", "second"]
    assert verify_file(path)["interactions"] == 2

    release["first"].set()
    await runs["first"].result
    for live in runs.values():
        await live.dispose()
    await handle.dispose()
    assert [item.sequence for item in load_cassette(path).interactions] == [1, 2, 3]
