"""Acceptance (issue 14): every catalogued credential shape, planted in every persisted place.

Each shape's canary (built at run time from its template, see secret_shapes.expand_canary)
goes into the prompt, label, persona, agent options (value and key), tool filter, the
result's text, a nested tool-result output, result object keys, a nested grandchild call,
and error messages, names and codes (start-error and result-error), through a real record
into a cassette file. With redaction on, none of the canary's secret runs is in the file
bytes, call keys included; the file verifies (`cassette verify`), replays with the same live
requests (matching is on fingerprints of the unredacted request: REDACT-7), and its
fingerprints and call-key identities equal those of the same run recorded without redaction.

TOPO-4 call keys carry a lowercased slug of the label; the recorder cuts it from the redacted
label, so only the readable segment of a secret-bearing label differs from an unredacted run.
"""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

import pytest
from cassette_cli.app import main as cassette_main
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
from cassette_provider.live.secret_shapes import SHAPES, expand_canary

NAMES = sorted(shape.name for shape in SHAPES)
TEMPLATES = {shape.name: shape.canary for shape in SHAPES}


class CanaryError(RuntimeError):
    """An upstream failure whose message, name and code all carry the canary."""

    def __init__(self, message: str, name: str, code: str) -> None:
        super().__init__(message)
        self.name = name
        self.code = code


def _canary(name: str) -> tuple[str, list[str]]:
    text, runs = expand_canary(TEMPLATES[name], random.Random(f"e2e/{name}").choice)
    return text, [run for run in runs if len(run) >= 8]


def _prompt(text: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": text}]


def _result(secret: str, nested: object) -> dict[str, object]:
    return {
        "output": [
            {"type": "text", "text": f"done: {secret}"},
            {
                "type": "tool-call",
                "id": "call_1",
                "name": "shell",
                "arguments": json.dumps({"cmd": f"env | grep {secret}"}),
            },
            {
                "type": "tool-result",
                "toolCallId": "call_1",
                "content": [{"type": "text", "text": f"OUTPUT={secret}\n"}],
            },
        ],
        "stopReason": "completed",
        "details": {secret: {"nested": [secret, {"deeper": secret}]}, "grandchild": nested},
    }


def _upstream(registry: ProviderRegistry, secret: str) -> FunctionProvider:
    async def run(request: StartRequest, child: SimpleAgent) -> object:
        if request.label == "grandchild":
            return {"output": [{"type": "text", "text": secret}], "stopReason": "completed"}
        if request.label == "fails":
            raise CanaryError(f"upstream said {secret}", f"Err {secret}", secret)
        nested = await registry.start(
            "cassette",
            StartRequest(prompt=_prompt(f"inner {secret}"), parent=child, label="grandchild"),
        )
        try:
            inner = await nested.result
        finally:
            await nested.dispose()
        return _result(secret, inner)

    def start(request: StartRequest) -> None:
        if request.label == "refused":
            raise CanaryError(f"cannot start: {secret}", "StartError", secret)

    return FunctionProvider("spawn", run, start=start)


def _requests(secret: str, root: SimpleAgent) -> list[StartRequest]:
    main = StartRequest(
        prompt=_prompt(f"deploy with {secret}"),
        parent=root,
        label=f"deploy {secret}",
        persona=f"operator holding {secret}",
        agent_options={"model": "m", "env": {"TOKEN_HINT": secret, secret: "as a key"}},
        tool_filter={"allow": ["shell", secret], "deny": []},
    )
    failing = StartRequest(prompt=_prompt(f"fail {secret}"), parent=root, label="fails")
    refused = StartRequest(prompt=_prompt(f"refuse {secret}"), parent=root, label="refused")
    return [main, failing, refused]


async def _drive(registry: ProviderRegistry, requests: list[StartRequest]) -> list[object]:
    outcomes: list[object] = []
    for request in requests:
        try:
            run = await registry.start("cassette", request)
        except Exception as error:
            outcomes.append(("start-error", getattr(error, "recorded_name", None)))
            continue
        try:
            outcomes.append(await run.result)
        except Exception as error:
            outcomes.append(("result-error", getattr(error, "recorded_name", None)))
        finally:
            await run.dispose()
    return outcomes


async def _record(
    path: Path,
    secret: str,
    *,
    storage: str,
    redact: bool = True,
    patterns: tuple[str, ...] = (),
) -> list[object]:
    registry = ProviderRegistry()
    registry.register(_upstream(registry, secret))
    config = RecordConfig(
        file=str(path),
        request_storage=storage,  # type: ignore[arg-type]
        redact_secrets=redact,
        redaction_patterns=patterns,
    )
    async with install_cassette(registry, config):
        return await _drive(registry, _requests(secret, SimpleAgent(session_id="root")))


_LABEL_SEGMENT = re.compile(r"/[a-z0-9-]*-([0-9a-f]{12}~[0-9]+)")


def _survivors(data: bytes, runs: list[str]) -> list[str]:
    """Secret runs found verbatim anywhere in the bytes."""
    return [run for run in runs if run.encode() in data]


def _identity(key: str) -> str:
    """A call key without its readable label segments: the path of identity hexes."""
    return _LABEL_SEGMENT.sub(r"/\1", key)


@pytest.mark.parametrize("storage", ["full", "metadata"])
@pytest.mark.parametrize("name", NAMES)
async def test_no_canary_reaches_the_file_and_the_file_still_replays(
    tmp_path: Path, name: str, storage: str
) -> None:
    secret, runs = _canary(name)
    path = tmp_path / "redacted.cassette.jsonl"
    recorded = await _record(path, secret, storage=storage)
    assert isinstance(recorded[0], dict)
    assert recorded[0]["details"][secret]["nested"][0] == secret  # the live caller: unredacted
    assert recorded[1:] == [("result-error", None), ("start-error", None)]
    data = path.read_bytes()
    assert _survivors(data, runs) == []
    assert b"[REDACTED]" in data

    plain = tmp_path / "plain.cassette.jsonl"
    await _record(plain, secret, storage=storage, redact=False)
    assert _survivors(plain.read_bytes(), runs) == runs  # the canary does reach an unredacted file

    # The redacted file verifies, and its identities are the unredacted run's (REDACT-7).
    summary = verify_file(path)
    assert summary["interactions"] == 4
    assert summary["redactedResults"] == 2
    out, err = io.StringIO(), io.StringIO()
    assert cassette_main(["verify", str(path)], stdout=out, stderr=err) == 0
    identities = [
        (_identity(item.call_key), _identity(item.parent_key), item.request_fingerprint)
        for item in load_cassette(path).interactions
    ]
    assert identities == [
        (_identity(item.call_key), _identity(item.parent_key), item.request_fingerprint)
        for item in load_cassette(plain).interactions
    ]

    # Replays offline with the same live requests; results are the redacted ones, and the
    # nested call is covered by its replayed parent (issue 12), so nothing is left over.
    registry = ProviderRegistry()
    handle = install_cassette(registry, ReplayConfig(file=str(path), allow_redacted_replay=True))
    replayed = await _drive(registry, _requests(secret, SimpleAgent(session_id="another-root")))
    await handle.dispose()  # MATCH-4: every interaction consumed or covered
    assert isinstance(replayed[0], dict)
    assert "[REDACTED]" in json.dumps(replayed[0])
    assert replayed[1][0] == "result-error"  # type: ignore[index]
    assert replayed[2] == ("start-error", "StartError")
    text = json.dumps(replayed)
    assert [run for run in runs if run in text] == []


async def test_every_place_is_persisted_when_redaction_is_off(tmp_path: Path) -> None:
    """The places the canary test covers all reach the file unredacted (so none is vacuous)."""
    secret, _ = _canary("slack-token")
    path = tmp_path / "plain.cassette.jsonl"
    await _record(path, secret, storage="full", redact=False)
    lines = [json.loads(line) for line in path.read_text("utf-8").splitlines()[1:]]
    by_label = {line["request"]["value"]["label"]: line for line in lines}
    main = by_label[f"deploy {secret}"]
    value = main["request"]["value"]
    assert value["prompt"][0]["text"].endswith(secret)
    assert value["persona"].endswith(secret)
    assert value["agentOptions"]["env"][secret] == "as a key"
    assert value["toolFilter"]["allow"] == ["shell", secret]
    result = main["outcome"]["result"]
    assert secret in result["output"][1]["arguments"]
    assert result["output"][2]["content"][0]["text"] == f"OUTPUT={secret}\n"
    assert result["details"][secret]["nested"][1]["deeper"] == secret
    assert result["details"]["grandchild"]["output"][0]["text"] == secret
    assert by_label["grandchild"]["outcome"]["result"]["output"][0]["text"] == secret
    failed = by_label["fails"]["outcome"]["error"]
    assert failed == {"name": f"Err {secret}", "message": f"upstream said {secret}", "code": secret}
    refused = by_label["refused"]["outcome"]["error"]
    assert (refused["code"], refused["message"]) == (secret, f"cannot start: {secret}")


async def test_a_custom_pattern_that_is_a_canary_stays_out_of_the_header(tmp_path: Path) -> None:
    """The header stores a fingerprint of each custom pattern, never its text (issue 26)."""
    survivors: list[str] = []
    for name in NAMES:
        secret, runs = _canary(name)
        path = tmp_path / f"{name}.cassette.jsonl"
        patterns = tuple(re.escape(run) for run in runs)
        await _record(path, secret, storage="full", patterns=patterns)
        data = path.read_bytes()
        header = data.split(b"\n", 1)[0]
        survivors += [f"{name}: {run}" for run in runs if run.encode() in data]
        assert header.count(b'"sha256:') == 1 + len(patterns)  # the header hash, then each
    assert survivors == []


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower())


async def test_labels_do_not_reach_call_keys(tmp_path: Path) -> None:
    leaked: list[str] = []
    for name in NAMES:
        secret, runs = _canary(name)
        path = tmp_path / f"{name}.cassette.jsonl"
        await _record(path, secret, storage="full")
        keys = " ".join(item.call_key for item in load_cassette(path).interactions)
        windows = {_slug(run)[i : i + 8] for run in runs for i in range(len(run) - 7)}
        if any(window in keys for window in windows if "-" not in window):
            leaked.append(name)
    assert leaked == []
