"""Replay lifecycle (REPLAY-*) and persistence redaction (REDACT-*)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cassette_format import load_cassette
from cassette_format.records import ResultOutcome
from cassette_provider import (
    AbortController,
    CassetteError,
    CassetteMismatchError,
    CassetteRecordedError,
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    ReplayConfig,
    SimpleAgent,
    StartRequest,
    aborted_result,
    install_cassette,
)
from cassette_provider.live.redact import compile_redactor, is_secret_key
from provider.support_provider import FakeClock, answer, prompt

CANARIES = {
    "bearer": "Authorization header Bearer abcdefgh12345678XYZ",
    "openai": "key sk-canaryCANARY123456",
    "github": "token ghp_canaryCANARY123456",
    "aws": "id AKIACANARYCANARY1234",
    "assignment": "config password=hunter2canary",
}


async def _record_one(
    path: Path, result: object, fake: FakeClock | None = None, **config: object
) -> None:
    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        if fake is not None:
            fake.now_s += 2.0
        return result

    def start(_request: StartRequest) -> None:
        if fake is not None:
            fake.now_s += 1.0

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run, start=start))
    clock = {"clock": fake.clock()} if fake is not None else {}
    async with install_cassette(registry, RecordConfig(file=str(path), **clock, **config)):  # type: ignore[arg-type]
        live = await registry.start(
            "cassette", StartRequest(prompt=prompt("p"), parent=SimpleAgent(), label="one")
        )
        await live.result
        await live.dispose()


def _replay(path: Path, **config: object) -> ProviderRegistry:
    registry = ProviderRegistry()
    install_cassette(registry, ReplayConfig(file=str(path), assert_consumed=False, **config))  # type: ignore[arg-type]
    return registry


def _request(signal: object = None) -> StartRequest:
    return StartRequest(prompt=prompt("p"), parent=SimpleAgent(), label="one", signal=signal)  # type: ignore[arg-type]


async def test_recorded_timing_is_scaled_by_speed(tmp_path: Path) -> None:  # REPLAY-2, REPLAY-3
    path = tmp_path / "c.jsonl"
    await _record_one(path, answer("x"), FakeClock())
    timing = load_cassette(path).interactions[0].timing
    replay_clock = FakeClock()
    registry = _replay(path, timing="recorded", speed=4.0, clock=replay_clock.clock())
    live = await registry.start("cassette", _request())
    assert await live.result == answer("x")
    expected = [
        timing.start_latency_ms / 4 / 1000,
        (timing.duration_ms - timing.start_latency_ms) / 4 / 1000,
    ]
    assert replay_clock.sleeps == pytest.approx([s for s in expected if s > 0])
    assert replay_clock.sleeps == pytest.approx([0.25, 0.5])


async def test_instant_replay_never_sleeps(tmp_path: Path) -> None:  # REPLAY-2
    path = tmp_path / "c.jsonl"
    await _record_one(path, answer("x"), FakeClock())
    replay_clock = FakeClock()
    live = await _replay(path, clock=replay_clock.clock()).start("cassette", _request())
    assert await live.result == answer("x")
    assert replay_clock.sleeps == []


async def test_abort_before_and_after_publication(tmp_path: Path) -> None:  # REPLAY-4, REPLAY-5
    path = tmp_path / "c.jsonl"
    await _record_one(path, answer("x"), FakeClock())
    controller = AbortController()
    controller.abort()
    with pytest.raises(CassetteRecordedError) as before:
        await _replay(path).start("cassette", _request(controller.signal))
    assert (before.value.recorded_name, before.value.code) == ("AbortError", "ABORTED")

    blocked = FakeClock(block=True)
    later = AbortController()
    registry = _replay(path, timing="recorded", clock=blocked.clock())
    starting = asyncio.ensure_future(registry.start("cassette", _request(later.signal)))
    await asyncio.sleep(0)
    later.abort()
    with pytest.raises(CassetteRecordedError, match="aborted before subagent publication"):
        await starting


async def test_dispose_during_the_remaining_delay_gives_aborted(tmp_path: Path) -> None:  # REPLAY-5
    path = tmp_path / "c.jsonl"
    await _record_one(path, answer("x"), FakeClock())
    blocked = FakeClock()
    registry = _replay(path, timing="recorded", clock=blocked.clock())
    blocked.block = False
    live = await registry.start("cassette", _request())
    blocked.block = True
    await live.dispose()
    await live.dispose()
    assert await live.result == aborted_result()


def test_replay_config_validation(tmp_path: Path) -> None:  # REPLAY-1, GAP-13
    with pytest.raises(CassetteError, match='timing must be "instant" or "recorded"'):
        _replay(tmp_path / "none.jsonl", timing="slow")
    with pytest.raises(CassetteError, match="duplicatePolicy"):
        _replay(tmp_path / "none.jsonl", duplicate_policy="first")


@pytest.mark.parametrize("name", sorted(CANARIES))
async def test_builtin_pattern_canaries_never_reach_the_file(
    tmp_path: Path, name: str
) -> None:  # REDACT-3, REDACT-7
    secret = CANARIES[name]
    path = tmp_path / "c.jsonl"

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        if _request.label == "fails":
            raise RuntimeError(f"failed with {secret}")
        return answer(f"result {secret}")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    async with install_cassette(registry, RecordConfig(file=str(path), request_storage="full")):
        for label in ("ok", "fails"):
            live = await registry.start(
                "cassette",
                StartRequest(
                    prompt=prompt(f"prompt {secret}"),
                    parent=SimpleAgent(session_id="r"),
                    label=label,
                ),
            )
            try:
                outcome = await live.result
                assert outcome == answer(f"result {secret}")  # the live caller sees the original
            except RuntimeError:
                pass
            await live.dispose()
    text = path.read_text(encoding="utf-8")
    secret_part = secret.split()[-1].split("=")[-1]
    assert secret_part not in text
    assert "[REDACTED]" in text


async def test_redacted_results_refused_by_default_allowed_on_request(
    tmp_path: Path,
) -> None:  # MATCH-1
    path = tmp_path / "c.jsonl"
    await _record_one(path, answer("token sk-canaryCANARY123456"))
    outcome = load_cassette(path).interactions[0].outcome
    assert isinstance(outcome, ResultOutcome)
    assert outcome.redactions == 1
    with pytest.raises(CassetteMismatchError, match="contains a redacted result"):
        _replay(path)
    live = await _replay(path, allow_redacted_replay=True).start("cassette", _request())
    assert await live.result == answer("token [REDACTED]")


async def test_protected_block_type_refuses_the_pattern(tmp_path: Path) -> None:  # REDACT-6
    path = tmp_path / "c.jsonl"

    async def run(_request: StartRequest, _child: SimpleAgent) -> object:
        return answer("x")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    async with install_cassette(
        registry, RecordConfig(file=str(path), request_storage="full", redaction_patterns=("tex",))
    ):
        with pytest.raises(CassetteError) as refused:
            await registry.start("cassette", _request())
    assert refused.value.code == "INVALID_CONFIG"
    assert str(refused.value) == 'redaction pattern matches protected content-block field "type"'


def test_secret_keys() -> None:  # REDACT-2
    for key in ("AZURE_OPENAI_API_KEY", "oauthRefreshToken", "password", "Cookie"):
        assert is_secret_key(key)
    for key in ("tokenCount", "secretQuestion", "apiKeyLabel"):
        assert not is_secret_key(key)


def test_custom_patterns_translated_or_refused() -> None:  # REDACT-4, GAP-8
    redactor = compile_redactor(True, (r"canary\s+\d+$",)).unwrap()
    assert redactor.redact_text("a CANARY\u00a042") == ("a [REDACTED]", 1)
    assert redactor.redact_text("CANARY 42\n") == ("CANARY 42\n", 0)  # `$` is end of input
    for source in ("(?<name>x)", "[^]", "(", "caf\u00e9", r"\p{L}"):
        refused = compile_redactor(True, (source,))
        assert str(refused.failure()) == f'invalid cassette redaction pattern "{source}"'
    assert compile_redactor(False, ("(",)).unwrap().patterns == ()  # REDACT-1
