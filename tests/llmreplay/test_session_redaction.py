"""Issue 13 "Redaction and storage" / issue 14 session logs: secrets never reach the log files.

Every catalogued credential shape's canary (built at run time, secret_shapes.expand_canary)
is planted in the prompt, an object key of the request body, the URL query, the request
headers and the upstream's JSON and SSE responses; with redaction on (the default) none of
the canary's secret runs is in the session-log bytes. Request fingerprints are taken before
redaction, so matching and by-request binding still work on redacted logs (REDACT-7); a
recorded response that was redacted is refused at replay unless allowed.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from cassette_canonical import JsonValue, canonical_json, fingerprint
from cassette_provider.live.secret_shapes import CANARY_CLASSES, SHAPES, expand_canary
from cassette_provider.models import (
    ModelReplayError,
    RecordingTransport,
    ReplayTransport,
    SessionRecorder,
    SessionReplayer,
    load_session_log,
    write_session_logs_sync,
)
from cassette_topology.sessions import (
    SESSION_CONFIG,
    SESSION_LOG_FORMAT,
    SESSION_REDACTED,
    encode_session_log,
    parse_session_log,
)

NAMES = sorted(shape.name for shape in SHAPES)
TEMPLATES = {shape.name: shape.canary for shape in SHAPES}
URL = "http://127.0.0.1:9/v1/chat/completions"


def _canary(name: str, salt: str = "") -> tuple[str, list[str]]:
    """A shape's canary and the runs (8+ characters) that must not reach a file."""
    text, runs = expand_canary(TEMPLATES[name], random.Random(f"llm/{name}/{salt}").choice)
    return text, [run for run in runs if len(run) >= 8]


def _run(length: int, salt: str) -> str:
    """A random alphanumeric run built at run time (never a committed credential)."""
    choose = random.Random(salt).choice
    return "".join(choose(CANARY_CLASSES["a"]) for _ in range(length))


class EchoServer:
    """An OpenAI-compatible upstream that echoes the secret it was sent in its answer.

    The secret is the request's `metadata.secret`; it comes back in the message text and as
    an object key, in a JSON body or in one SSE event (plus a clean event and `[DONE]`).
    """

    def __init__(self, *, echo: bool = True) -> None:
        self.echo = echo

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)

    async def handle(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        secret = str(body.get("metadata", {}).get("secret", ""))
        answer = f"echo {secret}" if self.echo else f"ok {body['messages'][-1]['content'][:12]}"
        extra = {secret: "seen"} if self.echo and secret else {}
        if body.get("stream"):
            events = [
                {"choices": [{"index": 0, "delta": {"content": answer}}], **extra},
                {"choices": [{"index": 0, "delta": {"content": "."}}]},
            ]
            content = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events)
            content += b"data: [DONE]\n\n"
            return httpx.Response(
                200, headers={"content-type": "text/event-stream"}, stream=_Bytes(content)
            )
        payload = {"choices": [{"index": 0, "message": {"content": answer}}], **extra}
        return httpx.Response(200, json=payload)


class _Bytes(httpx.AsyncByteStream):
    """Yield prepared SSE bytes event by event."""

    def __init__(self, content: bytes) -> None:
        self._events = [event + b"\n\n" for event in content.split(b"\n\n") if event]

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for event in self._events:
            yield event


def _body(prompt: str, secret: str, *, stream: bool) -> dict[str, object]:
    """A chat request whose prompt carries the secret and whose metadata has it as a key."""
    return {
        "model": "local",
        "stream": stream,
        "messages": [{"role": "user", "content": prompt}],
        "metadata": {"secret": secret, secret: "as-a-key"},
    }


async def _call(
    client: httpx.AsyncClient,
    body: dict[str, object],
    session: str,
    *,
    query: str = "",
    headers: dict[str, str] | None = None,
) -> str:
    """One model call; answers the response text (SSE bodies joined)."""
    sent = {"x-cassette-session": session, **(headers or {})}
    target = URL + (f"?{query}" if query else "")
    if body.get("stream"):
        async with client.stream("POST", target, json=body, headers=sent) as response:
            return (await response.aread()).decode()
    response = await client.post(target, json=body, headers=sent)
    return response.text


def _log_bytes(directory: Path) -> bytes:
    """Every session-log file under a directory, concatenated."""
    return b"".join(path.read_bytes() for path in sorted(directory.rglob("*.jsonl")))


async def _record_canary(
    directory: Path, name: str, *, stream: bool, redact: bool = True
) -> tuple[list[str], dict[str, object], str, str]:
    """Record one call carrying the shape's canary everywhere; answer runs, body, query, id."""
    secret, runs = _canary(name)
    key, token = _run(39, f"{name}/key"), _run(32, f"{name}/token")
    query = f"key={key}&access_token={token}"
    recorder = SessionRecorder(redact_secrets=redact)
    transport = RecordingTransport(EchoServer().transport, recorder)
    body = _body(f"please use {secret} now", secret, stream=stream)
    headers = {"authorization": f"Bearer {secret}", "x-api-key": secret}
    async with httpx.AsyncClient(transport=transport) as client:
        await _call(client, body, "main", query=query, headers=headers)
    write_session_logs_sync(directory, recorder.logs())
    return [*runs, key, token], body, query, "main"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("name", NAMES)
async def test_no_canary_reaches_the_session_log(tmp_path: Path, name: str, stream: bool) -> None:
    """Issue 13/14: prompt, body key, URL query, headers, JSON and SSE responses: 0 survive."""
    runs, _body_sent, _query, _session = await _record_canary(tmp_path, name, stream=stream)
    stored = _log_bytes(tmp_path)
    assert stored, "nothing was written"
    survivors = [run for run in runs if run.encode() in stored]
    assert survivors == [], f"{name}: {len(survivors)} secret run(s) reached the session log"
    assert b"[REDACTED]" in stored


async def test_without_redaction_the_canary_is_stored(tmp_path: Path) -> None:
    """The opposite switch: `redact_secrets=False` stores the body as sent (the test can fail)."""
    runs, _body_sent, _query, _session = await _record_canary(
        tmp_path, "github-fine-grained-pat", stream=False, redact=False
    )
    stored = _log_bytes(tmp_path)
    assert all(run.encode() in stored for run in runs)
    assert b"redactions" not in stored


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_headers_are_never_stored(tmp_path: Path, stream: bool) -> None:
    """Request headers (credentials included) are not part of a stored request, even unredacted."""
    header_secret = _run(24, "header")
    recorder = SessionRecorder(redact_secrets=False)
    transport = RecordingTransport(EchoServer().transport, recorder)
    async with httpx.AsyncClient(transport=transport) as client:
        await _call(
            client,
            _body("hello", "", stream=stream),
            "main",
            headers={"authorization": f"Bearer {header_secret}", "x-custom": header_secret},
        )
    write_session_logs_sync(tmp_path, recorder.logs())
    assert header_secret.encode() not in _log_bytes(tmp_path)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_redacted_response_is_refused_then_allowed(tmp_path: Path, stream: bool) -> None:
    """A redacted recorded response fails replay with SESSION_REDACTED; allowed, it replays."""
    runs, body, query, session = await _record_canary(tmp_path, "slack-token", stream=stream)
    replayer = await SessionReplayer.from_directory(tmp_path)
    async with httpx.AsyncClient(transport=ReplayTransport(replayer)) as client:
        with pytest.raises(ModelReplayError) as caught:
            await _call(client, body, session, query=query)
    error = caught.value
    assert (error.code, error.session, error.call_index) == (SESSION_REDACTED, "main", 1)
    assert 'session "main"' in str(error)
    assert "model call 1" in str(error)
    assert not any(run in str(error) for run in runs)
    assert "[REDACTED]" not in str(error)
    assert "echo" not in str(error)
    with pytest.raises(ModelReplayError):
        replayer.assert_consumed()  # the refusal is kept for teardown

    allowed = await SessionReplayer.from_directory(tmp_path, allow_redacted_replay=True)
    async with httpx.AsyncClient(transport=ReplayTransport(allowed)) as client:
        text = await _call(client, body, session, query=query)
    assert "[REDACTED]" in text
    assert not any(run in text for run in runs)
    allowed.assert_consumed()


async def test_redacted_request_with_clean_response_replays_by_default(tmp_path: Path) -> None:
    """Only the request held a secret: matching uses the unredacted fingerprint (REDACT-7)."""
    secret, runs = _canary("aws-access-key-id")
    recorder = SessionRecorder()
    transport = RecordingTransport(EchoServer(echo=False).transport, recorder)
    body = _body(f"key {secret}", secret, stream=False)
    async with httpx.AsyncClient(transport=transport) as client:
        recorded = await _call(client, body, "main")
    write_session_logs_sync(tmp_path, recorder.logs())
    (log,) = [load_session_log(p) for p in tmp_path.glob("*.jsonl")]
    (call,) = log.calls
    assert call.request_redactions > 0
    assert call.response_redactions == 0
    assert (
        call.match_fingerprint
        == fingerprint({"method": "POST", "path": "/v1/chat/completions", "body": body}).unwrap()
    )
    assert call.request_fingerprint == fingerprint(call.request).unwrap()
    assert not any(run.encode() in _log_bytes(tmp_path) for run in runs)

    replayer = await SessionReplayer.from_directory(tmp_path)
    async with httpx.AsyncClient(transport=ReplayTransport(replayer)) as client:
        assert await _call(client, body, "main") == recorded
        with pytest.raises(ModelReplayError):  # a different secret is a different request
            await _call(client, _body(f"key {secret}", "other", stream=False), "other")
    assert replayer.failures
    assert replayer.failures[0].code != SESSION_REDACTED


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_flipped_concurrent_children_bind_on_redacted_logs(
    tmp_path: Path, stream: bool
) -> None:
    """Children whose requests differ only in a secret store identical redacted requests;
    binding by the unredacted fingerprints still replays them with the order flipped."""
    secrets = {role: _canary("github-fine-grained-pat", role)[0] for role in ("alpha", "beta")}
    turns = ("first", "second")

    def request(role: str, turn: str) -> dict[str, object]:
        return _body(f"{turn} task with {secrets[role]}", secrets[role], stream=stream)

    server = EchoServer(echo=False)
    recorder = SessionRecorder()
    answers: dict[tuple[str, str], str] = {}
    async with httpx.AsyncClient(
        transport=RecordingTransport(server.transport, recorder)
    ) as client:
        await _call(client, _body("plan", "", stream=stream), "parent")
        for role in ("alpha", "beta"):
            for turn in turns:
                answers[role, turn] = await _call(client, request(role, turn), f"child-{role}")
    write_session_logs_sync(tmp_path, recorder.logs())
    logs = [load_session_log(p) for p in sorted(tmp_path.glob("*.jsonl"))]
    children = [log for log in logs if log.header.id.startswith("child-")]
    assert children[0].calls[0].request == children[1].calls[0].request  # redacted alike
    assert all(log.calls[0].match_binding_fingerprint for log in children)

    replayer = await SessionReplayer.from_directory(tmp_path)
    beta_started = asyncio.Event()
    replayed: dict[tuple[str, str], str] = {}
    async with httpx.AsyncClient(transport=ReplayTransport(replayer)) as client:
        await _call(client, _body("plan", "", stream=stream), "parent")

        async def child(role: str, live_id: str) -> None:
            if role == "alpha":
                await beta_started.wait()
            for turn in turns:
                replayed[role, turn] = await _call(client, request(role, turn), live_id)
                beta_started.set()

        await asyncio.gather(child("alpha", "live-1"), child("beta", "live-2"))
    assert replayed == answers
    replayer.assert_consumed()


async def test_meta_and_custom_patterns_are_redacted() -> None:
    """Response meta goes through redaction; custom patterns apply to values as in cassettes."""
    marker = f"INTERNAL-{_run(6, 'custom').upper()}"
    secret, runs = _canary("npm-token")
    recorder = SessionRecorder(redaction_patterns=(r"INTERNAL-[A-Z0-9]{6}",))
    call = recorder.begin_call({"prompt": f"ticket {marker}"}, "main")
    call.add_chunk({"text": f"see {marker}"})
    call.finish(streamed=False, meta={"status": 200, "note": f"token={secret}"})
    (log,) = recorder.logs()
    text = encode_session_log(log).unwrap()
    assert marker not in text
    assert not any(run in text for run in runs)
    assert log.calls[0].request_redactions == 1
    assert log.calls[0].response_redactions == 2


async def test_an_unsupported_custom_pattern_is_a_config_error() -> None:
    """A pattern outside the JavaScript subset fails at construction, naming its position."""
    with pytest.raises(ModelReplayError) as caught:
        SessionRecorder(redaction_patterns=("fine", "(?<name>x)"))
    assert caught.value.code == SESSION_CONFIG
    assert "pattern 2 of 2" in str(caught.value)
    assert "name" not in str(caught.value)


async def test_caller_values_are_not_mutated() -> None:
    """Redaction works on copies: the request and chunk the caller holds keep their secret."""
    secret, _runs = _canary("stripe-secret-key")
    request: JsonValue = {"prompt": secret, "nested": {"api_key": secret}}
    chunk: JsonValue = {"text": secret}
    recorder = SessionRecorder()
    call = recorder.begin_call(request, "main")
    call.add_chunk(chunk)
    call.finish(streamed=False)
    assert request == {"prompt": secret, "nested": {"api_key": secret}}
    assert chunk == {"text": secret}


def _redacted_log_text() -> str:
    """A small log with a redacted request and response, as the recorder writes it."""
    secret, _runs = _canary("gitlab-token")
    recorder = SessionRecorder()
    call = recorder.begin_call({"prompt": secret}, "main")
    call.add_chunk({"text": secret})
    call.finish(streamed=False)
    return encode_session_log(recorder.logs()[0]).unwrap()


def _rewrite(text: str, line: int, change: dict[str, object], drop: tuple[str, ...] = ()) -> str:
    """Edit one record and re-chain from it on, so only the schema rule can refuse the log."""
    records = [json.loads(raw) for raw in text.splitlines()]
    record = {k: v for k, v in records[line].items() if k not in drop}
    records[line] = {**record, **change}
    out: list[str] = []
    previous = None
    for index, rec in enumerate(records):
        body = {k: v for k, v in rec.items() if k != "hash"}
        if index > 0:
            body["previousHash"] = previous
        previous = fingerprint(body).unwrap()
        out.append(canonical_json({**body, "hash": previous}).unwrap())  # one canonical line
    return "\n".join(out) + "\n"


def test_codec_round_trips_redaction_fields() -> None:
    """matchFingerprint/matchBindingFingerprint and redactions survive encode and parse."""
    text = _redacted_log_text()
    log = parse_session_log(text).unwrap()
    (call,) = log.calls
    assert call.match_fingerprint
    assert call.match_binding_fingerprint
    assert call.request_redactions == 1
    assert call.response_redactions == 1
    assert encode_session_log(log).unwrap() == text


@pytest.mark.parametrize(
    ("line", "change", "drop", "expected"),
    [
        (3, {}, ("redactions",), "a redacted request needs matchFingerprint"),
        (1, {}, ("matchBindingFingerprint",), "must both be SHA-256 digests"),
        (3, {"redactions": {"request": 1}}, (), "redactions must be an object"),
        (3, {"redactions": {"request": 0, "response": 0}}, (), "not both 0"),
        (3, {"redactions": {"request": 1, "response": -1}}, (), "not both 0"),
        (3, {"redactions": {"request": 1, "response": True}}, (), "not both 0"),
        (3, {"redactions": {"request": 0, "response": 1}}, (), "only a redacted one"),
    ],
)
def test_codec_refuses_inconsistent_redaction_fields(
    line: int, change: dict[str, object], drop: tuple[str, ...], expected: str
) -> None:
    """The closed schema: redaction fields are validated, located by line (FMT-style)."""
    parsed = parse_session_log(_rewrite(_redacted_log_text(), line, change, drop))
    error = parsed.failure()
    assert error.code == SESSION_LOG_FORMAT
    assert expected in error.message
    assert error.line == line + 1


def test_json_inside_a_string_is_redacted_as_json() -> None:
    """A secret-named member inside JSON text (tool-call arguments, SSE data) is replaced whole;
    text patterns alone would keep all but the first word of a spaced passphrase."""
    words = [_run(9, f"word{i}").lower() for i in range(4)]
    arguments = json.dumps({"password": " ".join(words), "path": "/tmp"})
    recorder = SessionRecorder()
    call = recorder.begin_call({"prompt": "connect"}, "main")
    call.add_chunk({"data": json.dumps({"tool": {"arguments": arguments}})})
    call.finish(streamed=True)
    text = encode_session_log(recorder.logs()[0]).unwrap()
    assert not any(word in text for word in words)
    assert "/tmp" in text  # the rest of the embedded JSON is kept


async def test_transport_redaction_settings_apply_to_its_calls(tmp_path: Path) -> None:
    """`RecordingTransport(redact_secrets=..., redaction_patterns=...)` configures its calls."""
    marker = f"TICKET-{_run(8, 'transport').upper()}"
    secret, runs = _canary("openai-api-key")
    recorder = SessionRecorder(redact_secrets=False)
    transport = RecordingTransport(
        EchoServer(echo=False).transport, recorder, redaction_patterns=(r"TICKET-[A-Z0-9]{8}",)
    )
    async with httpx.AsyncClient(transport=transport) as client:
        await _call(client, _body(f"{marker} {secret}", "", stream=False), "main")
    write_session_logs_sync(tmp_path / "on", recorder.logs())
    stored = _log_bytes(tmp_path / "on")
    assert marker.encode() not in stored
    assert not any(run.encode() in stored for run in runs)

    plain = SessionRecorder()
    off = RecordingTransport(EchoServer(echo=False).transport, plain, redact_secrets=False)
    async with httpx.AsyncClient(transport=off) as client:
        await _call(client, _body(f"{marker} {secret}", "", stream=False), "main")
    write_session_logs_sync(tmp_path / "off", plain.logs())
    assert marker.encode() in _log_bytes(tmp_path / "off")


async def test_first_call_policy_matches_redacted_requests(tmp_path: Path) -> None:
    """The design note's first-call binding also compares the unredacted fingerprint."""
    secret, _runs = _canary("anthropic-api-key")
    recorder = SessionRecorder()
    transport = RecordingTransport(EchoServer(echo=False).transport, recorder)
    body = _body(f"use {secret}", secret, stream=False)
    async with httpx.AsyncClient(transport=transport) as client:
        recorded = [await _call(client, body, "main") for _ in range(2)]
    write_session_logs_sync(tmp_path, recorder.logs())
    replayer = await SessionReplayer.from_directory(tmp_path, binding="first-call")
    async with httpx.AsyncClient(transport=ReplayTransport(replayer)) as client:
        assert [await _call(client, body, "main") for _ in range(2)] == recorded
    replayer.assert_consumed()
