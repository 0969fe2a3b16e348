"""`refresh`: re-record only what changed, keep the rest's bytes, commit a clean run (issue 25).

"Keep their bytes", as docs/testing-with-cassettes.md states it: the refreshed file keeps the
old header and the used old interactions first, in their old order, each with its body (every
member but `previousHash` and `hash`) unchanged; so the lines before the first dropped or
re-recorded one are byte-identical, and every later kept line is identical but for its chain
fields. These tests check exactly that.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.refresh import RefreshHandle, install_refresh

CHAIN = ("previousHash", "hash")


def _prompt(text: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": text}]


class Upstream:
    """Answers `live <label>`; counts the calls that reached it; a child may nest one call."""

    def __init__(self, registry: ProviderRegistry, nests: str | None = None) -> None:
        self.calls: list[str] = []
        self._registry = registry
        self._nests = nests

    def provider(self) -> FunctionProvider:
        async def run(request: StartRequest, child: SimpleAgent) -> object:
            self.calls.append(str(request.label))
            if request.label == self._nests:
                inner = await self._registry.start(
                    "cassette",
                    StartRequest(prompt=_prompt("inner work"), parent=child, label="inner"),
                )
                try:
                    await inner.result
                finally:
                    await inner.dispose()
            return {
                "output": [{"type": "text", "text": f"live {request.label}"}],
                "stopReason": "completed",
            }

        return FunctionProvider("spawn", run)


async def _drive(registry: ProviderRegistry, prompts: Mapping[str, str]) -> list[str]:
    """Start the root's children one after another (so physical order is start order)."""
    root = SimpleAgent(session_id="root")
    answers: list[str] = []
    for label, text in prompts.items():
        run = await registry.start(
            "cassette", StartRequest(prompt=_prompt(text), parent=root, label=label)
        )
        try:
            answers.append(str((await run.result)["output"][0]["text"]))
        finally:
            await run.dispose()
    return answers


def _setup(nests: str | None = None) -> tuple[ProviderRegistry, Upstream]:
    registry = ProviderRegistry()
    upstream = Upstream(registry, nests)
    registry.register(upstream.provider())
    return registry, upstream


async def _record(
    path: Path, prompts: Mapping[str, str], storage: str, nests: str | None = None
) -> None:
    registry, _ = _setup(nests)
    config = RecordConfig(file=str(path), request_storage=storage)  # type: ignore[arg-type]
    async with install_cassette(registry, config):
        await _drive(registry, prompts)


async def _refresh(
    path: Path,
    prompts: Mapping[str, str],
    storage: str,
    nests: str | None = None,
    replay: ReplayConfig | None = None,
) -> tuple[RefreshHandle, Upstream]:
    registry, upstream = _setup(nests)
    config = RecordConfig(file=str(path), request_storage=storage)  # type: ignore[arg-type]
    handle = install_refresh(registry, config, replay)
    assert isinstance(handle, RefreshHandle)
    async with handle:
        await _drive(registry, prompts)
    return handle, upstream


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _body(line: bytes) -> dict[str, object]:
    document = json.loads(line)
    return {key: value for key, value in document.items() if key not in CHAIN}


def _by_label(path: Path) -> dict[str, bytes]:
    found = {}
    for line in _lines(path)[1:]:
        document = json.loads(line)
        request = document["request"]
        label = request["metadata"]["label"] if "metadata" in request else request["value"]["label"]
        found[label] = line
    return found


THREE = {"alpha": "alpha task", "beta": "beta task", "gamma": "gamma task"}


@pytest.mark.parametrize("storage", ["metadata", "full"])
async def test_one_changed_child_is_re_recorded_and_the_others_keep_their_bytes(
    tmp_path: Path, storage: str
) -> None:
    path = tmp_path / "flow.cassette.jsonl"
    await _record(path, THREE, storage)
    before = _lines(path)
    old = _by_label(path)
    handle, upstream = await _refresh(path, {**THREE, "beta": "beta task, reworded"}, storage)
    assert upstream.calls == ["beta"]  # only the changed child reached the upstream
    after = _lines(path)
    new = _by_label(path)
    assert after[0] == before[0]  # the header, id and creation time included
    assert after[1] == before[1] == old["alpha"]  # the unchanged prefix: byte-identical
    # gamma followed the re-recorded beta: identical but for its chain fields (and in place).
    assert _body(new["gamma"]) == _body(old["gamma"])
    assert json.loads(new["gamma"])["sequence"] == 3
    assert new["beta"] != old["beta"]
    assert verify_file(path)["interactions"] == 3
    assert handle.plan is not None
    assert handle.plan.moved == ()
    drift = handle.drift
    assert drift is not None
    kinds = {entry.label: entry.kind for entry in drift.entries}
    assert kinds == {"alpha": "unchanged", "beta": "request-changed", "gamma": "unchanged"}
    (beta,) = drift.of_kind("request-changed")
    assert beta.request_members[0].startswith("promptBytes ")
    assert beta.request_paths == (("prompt[0].text",) if storage == "full" else ())


async def test_a_change_in_the_last_child_keeps_both_other_lines_byte_identical(
    tmp_path: Path,
) -> None:
    path = tmp_path / "flow.cassette.jsonl"
    await _record(path, THREE, "metadata")
    before = _lines(path)
    await _refresh(path, {**THREE, "gamma": "gamma task, reworded"}, "metadata")
    after = _lines(path)
    assert after[:3] == before[:3]
    assert after[3] != before[3]


@pytest.mark.parametrize("storage", ["metadata", "full"])
async def test_changed_dropped_and_new_children(tmp_path: Path, storage: str) -> None:
    path = tmp_path / "flow.cassette.jsonl"
    await _record(path, THREE, storage)
    before = _lines(path)
    prompts = {"alpha": "alpha task", "beta": "beta task, reworded", "delta": "delta task"}
    handle, upstream = await _refresh(path, prompts, storage)
    assert upstream.calls == ["beta", "delta"]
    new = _by_label(path)
    assert sorted(new) == ["alpha", "beta", "delta"]  # gamma, no longer started, is dropped
    assert _lines(path)[1] == before[1]
    assert sorted(json.loads(line)["sequence"] for line in new.values()) == [1, 2, 3]
    assert verify_file(path)["interactions"] == 3
    drift = handle.drift
    assert drift is not None
    assert {entry.label: entry.kind for entry in drift.entries} == {
        "alpha": "unchanged",
        "beta": "request-changed",
        "gamma": "removed",
        "delta": "added",
    }


async def test_a_failing_run_leaves_the_old_cassette_untouched(tmp_path: Path) -> None:
    path = tmp_path / "flow.cassette.jsonl"
    await _record(path, THREE, "metadata")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(before) == [path.name, f"{path.name}.seal"]  # the cassette and its tail seal
    registry, upstream = _setup()
    handle = install_refresh(registry, RecordConfig(file=str(path)))
    assert isinstance(handle, RefreshHandle)

    async def failing_test() -> None:
        async with handle:
            await _drive(registry, {"alpha": "alpha task", "delta": "delta task"})
            raise AssertionError("the test failed")

    with pytest.raises(AssertionError, match="the test failed"):
        await failing_test()
    assert upstream.calls == ["delta"]
    # Both untouched and nothing else left (no staging, no partial).
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("strict", [False, True])
async def test_nested_subtrees_are_kept_under_a_replayed_call_and_renewed_under_a_new_one(
    tmp_path: Path, strict: bool
) -> None:
    path = tmp_path / "flow.cassette.jsonl"
    await _record(path, THREE, "metadata", nests="alpha")
    old = load_cassette(path).interactions
    inner_old = next(item for item in old if item.parent_key != "root")
    # alpha replays: its recorded inner call is covered, so kept without running (even when
    # strict_subtrees asks replay to demand every call: refresh keeps a replayed answer whole).
    replay = ReplayConfig(strict_subtrees=strict)
    handle, upstream = await _refresh(path, THREE, "metadata", nests="alpha", replay=replay)
    assert upstream.calls == []
    assert handle.plan is not None
    assert handle.plan.unchanged
    assert inner_old.call_key in handle.plan.kept
    # alpha changed: it runs live and records a new inner call; the old one is dropped.
    handle, upstream = await _refresh(
        path, {**THREE, "alpha": "alpha, again"}, "metadata", nests="alpha"
    )
    assert upstream.calls == ["alpha", "inner"]
    assert handle.plan is not None
    assert inner_old.call_key in handle.plan.dropped
    inner_new = [item for item in load_cassette(path).interactions if item.parent_key != "root"]
    assert len(inner_new) == 1
    assert inner_new[0].call_key != inner_old.call_key
    drift = handle.drift
    assert drift is not None
    # The inner call moved with its re-keyed parent; its own request did not change.
    assert {entry.label: entry.kind for entry in drift.entries}["inner"] == "unchanged"


async def test_a_missing_cassette_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "new.cassette.jsonl"
    registry, upstream = _setup()
    handle = install_refresh(registry, RecordConfig(file=str(path)))
    assert handle.mode == "record"
    await _drive(registry, THREE)
    await handle.dispose()
    assert upstream.calls == list(THREE)
    assert verify_file(path)["interactions"] == 3
