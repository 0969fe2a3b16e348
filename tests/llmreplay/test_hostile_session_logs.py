"""Hostile session logs and paths: a code, never a stray exception, a hang or a body.

Found by the hostile-input audit: `load_session_log` and `harvest_session_logs_sync` raised
`ValueError` for a path holding a NUL and blocked forever on a FIFO named like a log (a
device was read as if it were one); replaying a log whose recorded text holds a lone
surrogate (a hand-edited log: the recorder never writes one) raised `UnicodeEncodeError`
from inside the transport, and a recorded non-ASCII content type could not be replayed.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import httpx
import pytest
from cassette_canonical import JsonValue, fingerprint
from cassette_format.sessions import SESSION_LOG_FORMAT, SESSION_LOG_READ
from cassette_provider.models import (
    SessionLogFormatError,
    SessionReplayer,
    harvest_session_logs_sync,
    load_session_log,
    write_session_logs_sync,
)
from cassette_provider.models.redaction import session_redaction
from cassette_provider.models.sse import SseDecoder
from cassette_provider.models.stream_redaction import redact_across
from cassette_provider.models.transport import ReplayTransport, model_request
from cassette_topology.sessions import (
    RecordedCall,
    SessionLog,
    SessionLogHeader,
    encode_session_log,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

MARKER = "ZQX-SESSION-5150"
URL = "http://model.invalid/v1/chat/completions"
BODY: JsonValue = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def _identity() -> JsonValue:
    return model_request(httpx.Request("POST", URL, json=BODY))


def _log(
    chunks: tuple[JsonValue, ...], *, streamed: bool, meta: dict[str, JsonValue]
) -> SessionLog:
    identity = _identity()
    call = RecordedCall(1, identity, fingerprint(identity).unwrap(), streamed, chunks, meta=meta)
    return SessionLog(SessionLogHeader("s", "2026-01-01T00:00:00Z"), (call,))


def _marked_log() -> SessionLog:
    """A valid log with the marker deep inside its request, chunks and meta."""
    request: JsonValue = {"messages": [{"content": [MARKER]}]}
    call = RecordedCall(
        1,
        request,
        fingerprint(request).unwrap(),
        True,
        ({"data": {"text": [MARKER]}}, {"data": "x"}),
        meta={"note": {"deep": [MARKER]}},
    )
    return SessionLog(SessionLogHeader("s", "2026-01-01T00:00:00Z"), (call,))


# --- paths -----------------------------------------------------------------------------------


def _one_log_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    write_session_logs_sync(folder, [_marked_log()])
    return folder


@pytest.mark.parametrize("kind", ["fifo", "device", "nul"])
@pytest.mark.timeout(30, method="thread")  # before the fix a FIFO blocked the read forever
def test_a_path_that_is_no_log_file_is_a_read_error(tmp_path: Path, kind: str) -> None:
    folder = _one_log_folder(tmp_path)
    special = folder / "session.1.jsonl"
    if kind == "fifo":
        os.mkfifo(special)
    elif kind == "device":
        special.symlink_to(os.devnull)  # read as an empty log before the fix
    target: str = str(special) if kind != "nul" else str(folder / "session\x00.jsonl")
    with pytest.raises(SessionLogFormatError) as refused:
        load_session_log(target)
    assert refused.value.code == SESSION_LOG_READ
    assert str(refused.value).startswith('cannot read session log "')
    if kind != "nul":
        with pytest.raises(SessionLogFormatError) as harvested:
            harvest_session_logs_sync(folder)
        assert harvested.value.code == SESSION_LOG_READ


def test_a_directory_path_holding_a_nul_is_a_read_error(tmp_path: Path) -> None:
    with pytest.raises(SessionLogFormatError) as refused:
        harvest_session_logs_sync(str(tmp_path) + "/a\x00b")
    assert refused.value.code == SESSION_LOG_READ


# --- mutated logs ----------------------------------------------------------------------------


@st.composite
def _mutated(draw: st.DrawFn) -> bytes:
    data = encode_session_log(_marked_log()).unwrap().encode("utf-8")
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "cut", "insert"]))
        if kind == "flip":
            data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
        elif kind == "cut":
            data = data[:at]
        else:
            token = draw(st.sampled_from([b'"', b"{", b"}", b",", b"\\ud800", b"\xff", b"\n"]))
            data = data[:at] + token + data[at:]
    return data


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=_mutated())
def test_a_mutated_log_loads_or_is_a_format_error_without_its_bodies(
    tmp_path: Path, data: bytes
) -> None:  # LLMREPLAY-9: the codec's refusal, never another exception
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    refused = _refusal(path)
    if refused is not None:
        assert refused.code == SESSION_LOG_FORMAT
        assert MARKER not in str(refused)


def _refusal(path: Path) -> SessionLogFormatError | None:
    """The load's refusal, or None when the log loads (any other exception propagates)."""
    try:
        load_session_log(path)
    except SessionLogFormatError as refused:
        return refused
    return None


# --- replaying recorded text no HTTP response carries ---------------------------------------


async def _replay(log: SessionLog) -> httpx.Response:
    replayer = SessionReplayer.from_logs([log])
    async with (
        httpx.AsyncClient(transport=ReplayTransport(replayer)) as client,
        client.stream("POST", URL, json=BODY) as response,
    ):
        await response.aread()
        return response


@pytest.mark.parametrize(
    ("streamed", "chunk", "meta"),
    [
        (True, {"data": f"\ud800{MARKER}"}, {"contentType": "text/event-stream"}),
        (True, {"event": "\udfff", "data": "x"}, {"contentType": "text/event-stream"}),
        (False, f"\ud800{MARKER}", {"contentType": "text/plain", "body": "text"}),
        (False, {"a": 1}, {"contentType": "application/json\ud800"}),
    ],
    ids=["sse-data", "sse-event", "text-body", "content-type"],
)
async def test_a_lone_surrogate_in_recorded_text_is_a_format_error(
    streamed: bool, chunk: JsonValue, meta: dict[str, JsonValue]
) -> None:  # CANON-4 lets a log hold one; no byte stream can carry it
    with pytest.raises(SessionLogFormatError) as refused:
        await _replay(_log((chunk,), streamed=streamed, meta=meta))
    assert refused.value.code == SESSION_LOG_FORMAT
    assert "lone surrogate" in str(refused.value)
    assert MARKER not in str(refused.value)


async def test_a_recorded_non_ascii_content_type_replays() -> None:
    log = _log(({"a": 1},), streamed=False, meta={"status": 200, "contentType": "text/ü; x=€"})
    response = await _replay(log)
    assert response.headers["content-type"] == "text/ü; x=€"
    assert response.json() == {"a": 1}


# --- SSE framing of what a recorded upstream streams ----------------------------------------


def _whole_stream_events(data: bytes) -> list[dict[str, JsonValue]]:
    """The events of a stream read in one piece, framed by the plain rules (the oracle)."""
    events: list[dict[str, JsonValue]] = []
    fields: dict[str, list[str]] = {}
    lines = data.split(b"\n")
    for raw in [*lines[:-1], *([lines[-1]] if lines[-1] else []), b""]:
        line = raw.removesuffix(b"\r").decode("utf-8", errors="replace")
        if line == "":
            if fields:
                events.append({name: "\n".join(values) for name, values in fields.items()})
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            if name in ("data", "event", "id", "retry"):
                fields.setdefault(name, []).append(value.removeprefix(" "))
    return events


_SSE_PIECES = st.sampled_from(
    [b"data: ", b"event: x", b"id: 7", b"retry: 1", b": note", b"\n", b"\r\n", b"\r", "é".encode(),
     b"\xc3", b"\xa9", b"\xff", b"{\"a\":1}", b"data:", b" ", b"other: y"]
)  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(pieces=st.lists(_SSE_PIECES, max_size=40), cuts=st.lists(st.integers(0, 400), max_size=8))
def test_sse_framing_does_not_depend_on_how_the_stream_is_chunked(
    pieces: list[bytes], cuts: list[int]
) -> None:  # the recorder stores what a client reading the whole stream would see
    data = b"".join(pieces)
    bounds = sorted({0, len(data), *(cut for cut in cuts if cut < len(data))})
    decoder = SseDecoder()
    events = [
        event
        for start, stop in itertools.pairwise(bounds)
        for event in decoder.feed(data[start:stop])
    ]
    assert [*events, *decoder.close()] == _whole_stream_events(data)


@pytest.mark.timeout(30, method="thread")  # before the fix: quadratic, over a minute here
def test_sse_framing_is_linear_for_a_huge_chunk_or_a_huge_line() -> None:
    decoder = SseDecoder()
    many_lines = b"data: x\n\n" * (6 * 2**20 // 9)  # one 6 MB chunk of 700k events
    assert len(decoder.feed(many_lines)) == len(many_lines) // 9
    assert decoder.feed(b"data: ") == []
    piece = b"y" * 65536
    for _ in range(128):  # one 8 MB line in 64 KB chunks, no newline until the end
        assert decoder.feed(piece) == []
    (event,) = decoder.feed(b"\n\n")
    assert event == {"data": "y" * (128 * 65536)}


def _split_secret_chunks(depth: int) -> list[object]:
    """Two chunks whose text, `depth` arrays deep, holds a credential split between them."""
    chunks: list[object] = []
    for text in ("key sk-proj-ABCDEFGH", "IJKLMNOPQRSTUV done"):
        value: object = {"text": text}
        for _ in range(depth):
            value = [value]
        chunks.append(value)
    return chunks


@pytest.mark.timeout(30, method="thread")  # before the fix: a minute at this depth
def test_cross_chunk_redaction_is_linear_in_the_depth_of_a_chunk() -> None:
    # CANON-9: walks over recorded values are iterative, and linear as well
    chunks = _split_secret_chunks(100_000)
    redact = session_redaction(True, ()).redactor.redact_text
    assert redact_across(chunks, redact) >= 1
    leaf: object = chunks[0]
    while isinstance(leaf, list):
        (leaf,) = leaf
    assert leaf == {"text": "key [REDACTED]"}
