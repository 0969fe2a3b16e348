"""Public configs and requests refuse odd values with a code, never a stray exception (issue 26).

Hypothesis draws odd values for each field of `RecordConfig`, `ReplayConfig` and
`StartRequest`: construction either works or raises `CassetteError` with `INVALID_CONFIG`; a
config that constructs installs (or fails with a `CassetteError`); a request that constructs
is started through a recording cassette in both storages and either works, fails with the
reference's documented TypeError (NORM-2, NORM-3), or with a `CassetteError` - and every
other call of that recording is still committed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from cassette_format import load_cassette
from cassette_format.errors import CassetteError
from cassette_provider import (
    AbortController,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.contract.clock import SYSTEM_CLOCK
from hypothesis import given, settings
from hypothesis import strategies as st
from provider.support_provider import answer, prompt


class Mode(enum.StrEnum):
    CREATE = "create"


_ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=20),
    st.binary(max_size=5),
    st.lists(st.one_of(st.text(max_size=5), st.integers()), max_size=3),
    st.tuples(st.text(max_size=5)),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=2),
    st.sampled_from(
        [
            Mode.CREATE,
            object(),
            "create",
            "truncate",
            "metadata",
            "full",
            "instant",
            "recorded",
            "sequence",
            "x\x00y",
            " spaced ",
            "[",
            ("[",),
            ["ok"],
            SYSTEM_CLOCK,
            -0.0,
            1e300,
            SimpleAgent(),
            AbortController().signal,
            [{"type": "text", "text": "x"}],
            [{"type": "text", "text": Mode.CREATE}],
            {"allow": ["a"]},
            {"only": []},
        ]
    ),
)
ROOT = SimpleAgent(session_id="root")
_RECORD_FIELDS = sorted(f.name for f in dataclasses.fields(RecordConfig))
_REPLAY_FIELDS = sorted(f.name for f in dataclasses.fields(ReplayConfig))
_REQUEST_FIELDS = sorted(f.name for f in dataclasses.fields(StartRequest))
#: The reference's TypeErrors for requests it cannot fingerprint (NORM-2, NORM-3).
_NORM_MESSAGES = ("subagent cassette request is not lossless", "subagent cassette toolFilter")


def _made(factory: Callable[..., object], fields: dict[str, object]) -> object | None:
    """The constructed value, or None after an INVALID_CONFIG refusal; nothing else escapes."""
    try:
        return factory(**fields)
    except CassetteError as refused:
        code = refused.code
    assert code == "INVALID_CONFIG"
    return None


async def _answer(request: StartRequest, _child: SimpleAgent) -> object:
    return answer(str(request.label))


def _registry() -> ProviderRegistry:
    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", _answer))
    return registry


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(_RECORD_FIELDS), value=_ODD)
def test_record_config_refuses_odd_values_with_invalid_config(field: str, value: object) -> None:
    with tempfile.TemporaryDirectory() as directory:
        fields = {"file": os.path.join(directory, "c.cassette.jsonl"), field: value}
        if field == "file" and isinstance(value, str):
            fields["file"] = os.path.join(directory, "sub", value.replace("/", "_") or "_")
        config = _made(RecordConfig, fields)
        if config is None:
            return
        assert isinstance(config, RecordConfig)

        async def record() -> None:
            try:
                handle = install_cassette(_registry(), config)
            except CassetteError:
                return  # a name already taken, no upstream, a path that cannot be opened
            await handle.dispose()

        asyncio.run(record())


@settings(max_examples=300, deadline=None)
@given(field=st.sampled_from(_REPLAY_FIELDS), value=_ODD)
def test_replay_config_refuses_odd_values_with_invalid_config(field: str, value: object) -> None:
    with tempfile.TemporaryDirectory() as directory:
        fields = {"file": os.path.join(directory, "missing.cassette.jsonl"), field: value}
        if field == "file":
            fields["file"] = os.path.join(directory, "missing.cassette.jsonl")
        config = _made(ReplayConfig, fields)
        if config is None:
            return
        assert isinstance(config, ReplayConfig)
        with pytest.raises(CassetteError):  # the file is missing: a coded error, not OSError
            install_cassette(ProviderRegistry(), config)


@settings(max_examples=200, deadline=None)
@given(
    field=st.sampled_from(_REQUEST_FIELDS),
    value=_ODD,
    storage=st.sampled_from(["metadata", "full"]),
)
def test_odd_request_fields_end_their_own_call(field: str, value: object, storage: str) -> None:
    fields: dict[str, object] = {"prompt": prompt("odd"), "parent": ROOT, field: value}
    request = _made(StartRequest, {"label": "odd", **fields})
    if request is None:
        return
    assert isinstance(request, StartRequest)

    async def record(path: Path) -> None:
        registry = _registry()
        config = RecordConfig(file=str(path), request_storage=storage)  # type: ignore[arg-type]
        async with install_cassette(registry, config):
            good = (StartRequest(prompt=prompt(x), parent=ROOT, label=x) for x in "ab")
            for item in (next(good), request, next(good)):
                try:
                    run = await registry.start("cassette", item)
                except TypeError as refused:
                    refusals.append(str(refused))
                    continue
                except CassetteError:
                    continue
                try:
                    await run.result
                except CassetteError:
                    pass
                finally:
                    await run.dispose()

    refusals: list[str] = []
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "c.cassette.jsonl"
        asyncio.run(record(path))
        assert all(message.startswith(_NORM_MESSAGES) for message in refusals), refusals
        labels = [i.call_key.rsplit("/", 1)[-1] for i in load_cassette(str(path)).interactions]
        assert {"a", "b"} <= {key.split("-", 1)[0] for key in labels}, labels  # both committed
