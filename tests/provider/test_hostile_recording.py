"""Hostile values recorded through RecordConfig end their own call only (issue 26 follow-up).

Each scenario records a good call, the hostile one and another good call into a `create`
cassette. The hostile call ends as a documented error (the upstream's own exception, a
`TypeError` for a non-lossless result (ERR-3), or a `CassetteError` with a code at start);
the good calls return, dispose finishes, and `verify` passes on the committed file. Found
by the hostile-input audit: an upstream error whose `name`/`code` property or `str()`
raised escaped from inside the recorder (and at start left no line, so dispose waited for
its timeout), and a request too long for any line was started and then left a sequence gap
that made the whole cassette unreadable.
"""

from __future__ import annotations

import collections
import decimal
import types
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_format.errors import CassetteError
from cassette_format.read.lines import MAX_LINE_BYTES
from cassette_format.records import ResultErrorOutcome, StartErrorOutcome
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
from cassette_provider.contract.errors import UNPRINTABLE_MESSAGE
from hypothesis import given, settings
from hypothesis import strategies as st
from provider.support_provider import answer, labelled, prompt, run_to_end
from support.strategies import json_values

ROOT = SimpleAgent(session_id="root")
#: A bound, not a timing claim: the old code left a start without a line, and dispose then
#: waited this long for it before failing (its default is 300 s).
DISPOSE_TIMEOUT_S = 5.0


def _request(label: str, **fields: object) -> StartRequest:
    return labelled(label, ROOT, **fields)


# --- upstream errors whose own attributes are hostile (ERR-3) ------------------------------


class NameRaises(Exception):
    @property
    def name(self) -> str:
        raise RuntimeError("the name property raised")


class CodeRaises(Exception):
    @property
    def code(self) -> str:
        raise ValueError("the code property raised")


class StrRaises(Exception):
    def __str__(self) -> str:
        raise RuntimeError("str raised")


class LooksLikeText:
    """Claims to be a `str` to isinstance (`__class__`), which `str.__str__` refuses."""

    __class__ = str  # type: ignore[assignment]


class FakeTextName(Exception):
    name = LooksLikeText()
    code = LooksLikeText()


def _deep_argument() -> Exception:
    value: object = "leaf"
    for _ in range(5_000):  # str(error) recurses through repr: RecursionError
        value = [value]
    return ValueError(value)


#: (error factory, recorded name, recorded message, recorded code).
HOSTILE_ERRORS: dict[str, tuple[Callable[[], BaseException], str, str, str | None]] = {
    "name-property-raises": (lambda: NameRaises("m"), "NameRaises", "m", None),
    "code-property-raises": (lambda: CodeRaises("m"), "CodeRaises", "m", None),
    "str-raises": (lambda: StrRaises("m"), "StrRaises", UNPRINTABLE_MESSAGE, None),
    "fake-text-name-and-code": (lambda: FakeTextName("m"), "FakeTextName", "m", None),
    "deep-argument": (_deep_argument, "ValueError", UNPRINTABLE_MESSAGE, None),
}


@pytest.mark.parametrize("phase", ["start", "result"])
@pytest.mark.parametrize("shape", sorted(HOSTILE_ERRORS))
async def test_a_hostile_upstream_error_ends_its_call_with_its_own_facts(
    tmp_path: Path, shape: str, phase: str
) -> None:  # ERR-3, PROV-5, PROV-7
    make, name, message, code = HOSTILE_ERRORS[shape]
    raised: list[BaseException] = []

    def fail(request: StartRequest) -> None:
        if phase == "start" and request.label == "odd":
            raised.append(make())
            raise raised[-1]

    def run(request: StartRequest, _child: SimpleAgent) -> object:
        if phase == "result" and request.label == "odd":
            raised.append(make())
            raise raised[-1]
        return answer(request.label or "")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, start=fail))
    path = tmp_path / "c.cassette.jsonl"
    config = RecordConfig(file=str(path), dispose_timeout=DISPOSE_TIMEOUT_S)
    handle = install_cassette(registry, config)
    assert await run_to_end(registry, _request("before")) == answer("before")
    with pytest.raises(type(make())) as caught:
        await run_to_end(registry, _request("odd"))
    assert caught.value is raised[0]  # the upstream's own error, not one from the recorder
    assert await run_to_end(registry, _request("after")) == answer("after")
    await handle.dispose()  # before the fix: a start without a line made this time out

    assert verify_file(str(path))["interactions"] == 3
    odd = load_cassette(str(path)).interactions[1]
    expected = StartErrorOutcome if phase == "start" else ResultErrorOutcome
    assert isinstance(odd.outcome, expected)
    recorded = odd.outcome.error
    assert (recorded.name, recorded.message, recorded.code) == (name, message, code)
    replay = ProviderRegistry()
    async with install_cassette(replay, ReplayConfig(file=str(path))):
        assert await run_to_end(replay, _request("before")) == answer("before")
        with pytest.raises(CassetteRecordedError) as replayed:
            await run_to_end(replay, _request("odd"))
        assert replayed.value.recorded_name == name
        assert await run_to_end(replay, _request("after")) == answer("after")


# --- requests no line can hold (FMT-3's line bound, PROV-3) --------------------------------

_OVERLONG = "y" * (MAX_LINE_BYTES + 1)


@pytest.mark.parametrize(
    ("storage", "fields"),
    [
        ("metadata", {"tool_filter": {"allow": [_OVERLONG]}}),
        ("full", {"prompt": prompt(_OVERLONG)}),
    ],
    ids=["metadata-tool-filter", "full-prompt"],
)
async def test_a_request_too_long_for_any_line_is_refused_before_it_starts(
    tmp_path: Path, storage: str, fields: dict[str, object]
) -> None:  # PROV-3, FMT-3
    started: list[str | None] = []

    def run(request: StartRequest, _child: SimpleAgent) -> object:
        started.append(request.label if len(request.label or "") < 64 else "long")
        return answer("x")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    path = tmp_path / "c.cassette.jsonl"
    config = RecordConfig(file=str(path), request_storage=storage)  # type: ignore[arg-type]
    handle = install_cassette(registry, config)
    assert await run_to_end(registry, _request("before")) == answer("x")
    odd = {"prompt": prompt("odd"), "parent": ROOT, "label": "odd", **fields}
    with pytest.raises(CassetteError) as refused:
        await run_to_end(registry, StartRequest(**odd))  # type: ignore[arg-type]
    assert refused.value.code == "CASSETTE_FORMAT"
    assert str(refused.value).startswith("subagent cassette request cannot be recorded")
    assert "yyyy" not in str(refused.value)  # no stored text in the message
    assert await run_to_end(registry, _request("after")) == answer("x")
    await handle.dispose()
    assert started == ["before", "after"]  # the upstream never saw the refused request
    assert verify_file(str(path))["interactions"] == 2  # before the fix: a sequence gap


# --- result values that are not lossless plain JSON (NORM-1, PROV-7) -----------------------


class _EqualityRaises:
    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __hash__(self) -> int:
        raise RuntimeError("hash")


class _ItemsLie(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[no-untyped-def]
        return [("a", 1)]

    def keys(self):  # type: ignore[no-untyped-def]
        return ["a"]


class _ItemsRaise(dict):  # type: ignore[type-arg]
    def items(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("items")

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("iter")

    def __len__(self) -> int:
        raise RuntimeError("len")


class _ClaimsDict:
    __class__ = dict  # type: ignore[assignment]


class _LateHash:
    """Hashable while a dict is built, raising once armed (a key turned hostile later)."""

    armed = False

    def __hash__(self) -> int:
        if self.armed:
            raise RuntimeError("hash")
        return 1


def _late_key() -> dict[object, int]:
    key = _LateHash()
    value: dict[object, int] = {key: 1}
    key.armed = True
    return value


def _cycle() -> object:
    value: list[object] = []
    value.append(value)
    return value


def _deep(levels: int) -> object:
    value: object = "leaf"
    for _ in range(levels):
        value = {"k": value}
    return value


HOSTILE_LEAVES: dict[str, Callable[[], object]] = {
    "cycle": _cycle,
    "nan": lambda: float("nan"),
    "infinity": lambda: float("-inf"),
    "negative-zero": lambda: -0.0,
    "int-past-2^53": lambda: 2**53 + 1,
    "int-of-5000-digits": lambda: 10**5000,  # str() of it raises ValueError in Python
    "int-key": lambda: {1: "x"},
    "tuple-key": lambda: {(1, 2): "x"},
    "bytes": lambda: b"x",
    "set": lambda: {1},
    "complex": lambda: 1j,
    "decimal": lambda: decimal.Decimal("1.5"),
    "equality-raises": _EqualityRaises,
    "items-lie": lambda: _ItemsLie(b=2),
    "items-raise": lambda: _ItemsRaise(a=1),
    "claims-dict": _ClaimsDict,
    "mapping-proxy": lambda: types.MappingProxyType({"a": 1}),
    "ordered-dict": lambda: collections.OrderedDict(a=1),
    "key-hash-raises-later": _late_key,
    "object": object,
}


def _with_leaf(leaf: object) -> dict[str, object]:
    return {"output": [{"type": "text", "text": "x", "extra": leaf}], "stopReason": "completed"}


async def _record_three(path: Path, odd: object) -> TypeError:
    """Record before / odd / after; the odd call's TypeError (it must raise one)."""

    def run(request: StartRequest, _child: SimpleAgent) -> object:
        return odd if request.label == "odd" else answer(request.label or "")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    assert await run_to_end(registry, _request("before")) == answer("before")
    with pytest.raises(TypeError) as refused:
        await run_to_end(registry, _request("odd"))
    assert await run_to_end(registry, _request("after")) == answer("after")
    await handle.dispose()
    return refused.value


@pytest.mark.parametrize("leaf", sorted(HOSTILE_LEAVES))
async def test_a_hostile_result_leaf_is_a_type_error_line(tmp_path: Path, leaf: str) -> None:
    # PROV-7, ERR-3: the documented TypeError, recorded as such; the cassette stays valid
    path = tmp_path / "c.cassette.jsonl"
    refused = await _record_three(path, _with_leaf(HOSTILE_LEAVES[leaf]()))
    assert type(refused) is TypeError
    assert str(refused) == "subagent cassette result is not lossless plain JSON"
    assert verify_file(str(path))["interactions"] == 3
    odd = load_cassette(str(path)).interactions[1].outcome
    assert isinstance(odd, ResultErrorOutcome)
    assert (odd.error.name, odd.error.message) == ("TypeError", str(refused))


async def test_a_result_nested_40k_levels_records_and_verifies(tmp_path: Path) -> None:
    # CANON-9: iterative walks all the way (snapshot, redaction, serialization, verify)
    path = tmp_path / "c.cassette.jsonl"
    deep = _with_leaf(_deep(40_000))

    def run(request: StartRequest, _child: SimpleAgent) -> object:
        return deep if request.label == "deep" else answer("x")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    async with install_cassette(registry, RecordConfig(file=str(path))):
        assert await run_to_end(registry, _request("deep")) is not None
        assert await run_to_end(registry, _request("after")) == answer("x")
    assert verify_file(str(path))["interactions"] == 2


@settings(max_examples=15, deadline=None)
@given(
    value=json_values(max_leaves=8),
    leaf=st.sampled_from(sorted(HOSTILE_LEAVES)) | st.none(),
    storage=st.sampled_from(["metadata", "full"]),
)
async def test_a_drawn_result_records_as_itself_or_as_a_type_error_line(
    tmp_path_factory: pytest.TempPathFactory, value: object, leaf: str | None, storage: str
) -> None:  # PROV-7, REPLAY-5: lossless results replay equal; a hostile leaf never poisons
    path = tmp_path_factory.mktemp("drawn") / "c.cassette.jsonl"
    extra = value if leaf is None else [value, HOSTILE_LEAVES[leaf]()]
    result = _with_leaf(extra)

    def run(request: StartRequest, _child: SimpleAgent) -> object:
        return result if request.label == "odd" else answer(request.label or "")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    config = RecordConfig(file=str(path), request_storage=storage, redact_secrets=False)  # type: ignore[arg-type]
    async with install_cassette(registry, config):
        assert await run_to_end(registry, _request("before")) == answer("before")
        if leaf is None:
            assert await run_to_end(registry, _request("odd")) == result
        else:
            with pytest.raises(TypeError, match="not lossless plain JSON"):
                await run_to_end(registry, _request("odd"))
        assert await run_to_end(registry, _request("after")) == answer("after")
    assert verify_file(str(path))["interactions"] == 3
    if leaf is None:
        replay = ProviderRegistry()
        async with install_cassette(replay, ReplayConfig(file=str(path))):
            for label in ("before", "odd", "after"):
                replayed = await run_to_end(replay, _request(label))
                assert replayed == (result if label == "odd" else answer(label))


# --- parent session events that are not event objects (NORM-6, NORM-8) ---------------------


class _ForeignParent(SimpleAgent):
    """A parent from another harness, whose `events` are whatever it keeps there."""

    def __init__(self, events: object) -> None:
        super().__init__("root")
        self._foreign_events = events

    @property
    def events(self) -> Sequence[Mapping[str, object]]:
        return self._foreign_events  # type: ignore[return-value]


@pytest.mark.parametrize(
    "events",
    [[5], [None], ["turn/end"], [[1, 2]], [5, {"type": "turn/end", "seq": 1}], 5, "events"],
    ids=["number", "null", "string", "array", "number-then-turn-end", "not-a-list", "a-string"],
)
async def test_parent_events_that_are_no_event_objects_are_skipped(
    tmp_path: Path, events: object
) -> None:  # NORM-6: non-array events are none; a primitive has no `type` (JS reads undefined)
    path = tmp_path / "c.cassette.jsonl"
    parent = _ForeignParent(events)

    def run(request: StartRequest, _child: SimpleAgent) -> object:
        return answer(request.label or "")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, inherits_parent_context=True))
    async with install_cassette(registry, RecordConfig(file=str(path))):
        request = StartRequest(prompt=prompt("odd"), parent=parent, label="odd")
        assert await run_to_end(registry, request) == answer("odd")  # before: AttributeError
    assert verify_file(str(path))["interactions"] == 1
    replay = ProviderRegistry()
    async with install_cassette(replay, ReplayConfig(file=str(path))):
        request = StartRequest(prompt=prompt("odd"), parent=parent, label="odd")
        assert await run_to_end(replay, request) == answer("odd")
