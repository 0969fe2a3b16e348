"""Session-log JSONL codec: canonical, hash-chained lines in; verified records out, and back.

Every line is canonical JSON (`cassette_canonical.canonical_json`) ending in `\\n`. The header's
`hash` is the fingerprint of the header without `hash`; every entry carries the previous line's
hash as `previousHash` and its own `hash` over the entry without it (`own_hash`, the cassette
chain's rule), so a truncated middle, an edited chunk or a reordered line is detected. Unlike a
cassette (FMT-3: non-blank lines, JavaScript blanks), lines are numbered physically (1-based)
and a blank line holds only spaces, tabs and CRs; decoding is strict UTF-8. Each line's text
must be its value's canonical text (a CR before the `\\n` is tolerated), so no two texts
read as one log. Optional header and response members are absent, never null.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial
from typing import Final

from cassette_canonical import JsonValue, canonical_json, fingerprint, is_digest, parse_json
from cassette_canonical.limits import MAX_SAFE_INTEGER
from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.records.members import present
from cassette_format.records.own_hash import own_hash
from cassette_format.sessions.created_at import created_at_instant
from cassette_format.sessions.errors import SESSION_LOG_FORMAT
from cassette_format.sessions.records import (
    CHUNK_KIND,
    HEADER_KIND,
    REQUEST_KIND,
    RESPONSE_KIND,
    SESSION_LOG_FORMAT_NAME,
    SESSION_LOG_VERSION,
    RecordedCall,
    SessionLog,
    SessionLogHeader,
)

__all__ = ["call_records", "encode_session_log", "header_record", "parse_session_log"]

_HEADER_KEYS: Final = frozenset(
    {
        "kind",
        "format",
        "version",
        "id",
        "createdAt",
        "parentSession",
        "seedCalls",
        "callKey",
        "firstCallOrdinal",
        "hash",
    }
)
_ENTRY_KEYS: Final = {
    REQUEST_KIND: frozenset(
        {
            "kind",
            "call",
            "requestFingerprint",
            "matchFingerprint",
            "matchBindingFingerprint",
            "request",
            "previousHash",
            "hash",
        }
    ),
    CHUNK_KIND: frozenset({"kind", "call", "chunk", "previousHash", "hash"}),
    RESPONSE_KIND: frozenset(
        {"kind", "call", "streamed", "chunks", "meta", "redactions", "previousHash", "hash"}
    ),
}
_REDACTION_KEYS: Final = frozenset({"request", "response"})
_BLANK: Final = " \t\r"


@dataclass(frozen=True, slots=True)
class _ChunkLink:
    """A persistent stack of chunks (newest first): appending is O(1) in a frozen fold."""

    chunk: JsonValue
    older: _ChunkLink | None


def _chunks_in_order(newest: _ChunkLink | None) -> tuple[JsonValue, ...]:
    """Unwind the chunk stack iteratively into file order."""
    reversed_chunks: list[JsonValue] = []
    link = newest
    while link is not None:
        reversed_chunks.append(link.chunk)
        link = link.older
    reversed_chunks.reverse()
    return tuple(reversed_chunks)


@dataclass(frozen=True, slots=True)
class _OpenCall:
    """A call whose request was read and whose response entry has not been seen yet."""

    index: int
    request: JsonValue
    request_fingerprint: str
    chunk_count: int
    newest_chunk: _ChunkLink | None
    match_fingerprint: str | None = None
    match_binding_fingerprint: str | None = None


@dataclass(frozen=True, slots=True)
class _ParseState:
    """The fold state of the line parser: header, finished calls, open call, chain tip."""

    header: SessionLogHeader | None
    calls: tuple[RecordedCall, ...]
    open_call: _OpenCall | None
    previous_hash: str | None


def _problem(line: int, message: str) -> FormatProblem:
    """A format error located at a physical line."""
    return FormatProblem(f"line {line}: {message}", code=SESSION_LOG_FORMAT, line=line)


def _is_count(value: object, minimum: int) -> bool:
    """An int (never a bool) of at least `minimum` and at most 2^53-1."""
    if not isinstance(value, int) or isinstance(value, bool):
        return False
    return minimum <= value <= MAX_SAFE_INTEGER


def _is_text(value: object) -> bool:
    """A non-empty string."""
    return isinstance(value, str) and value != ""


def _unknown_key(record: dict[str, JsonValue], allowed: frozenset[str]) -> str | None:
    """The first key (document order) outside a closed record's field set."""
    return next((key for key in record if key not in allowed), None)


def _check_hash(line: int, record: dict[str, JsonValue]) -> Result[str, FormatProblem]:
    """Verify a record's own `hash` over the record without it; answer the hash."""
    claimed = record.get("hash")
    if not is_digest(claimed) or not isinstance(claimed, str):
        return Failure(_problem(line, "hash must be a lowercase SHA-256 digest"))
    return (
        own_hash(record)
        .alt(lambda _: _problem(line, "record is not lossless canonical JSON"))
        .bind(
            lambda digest: (
                Success(claimed) if digest == claimed else Failure(_problem(line, "hash mismatch"))
            )
        )
    )


def _header_problem(line: int, record: dict[str, JsonValue]) -> FormatProblem | None:
    """The first rule a header record breaks, or None."""
    if record.get("kind") != HEADER_KIND:
        return _problem(line, "the first record is not a session-log header")
    unknown = _unknown_key(record, _HEADER_KEYS)
    if unknown is not None:
        return _problem(line, f"header.{unknown} is not supported")
    if record.get("format") != SESSION_LOG_FORMAT_NAME:
        return _problem(line, f'header.format must be "{SESSION_LOG_FORMAT_NAME}"')
    version = record.get("version")
    if not _is_count(version, 1) or version != SESSION_LOG_VERSION:
        return _problem(line, f"unsupported session-log version (expected {SESSION_LOG_VERSION})")
    if not _is_text(record.get("id")):
        return _problem(line, "header.id must be a non-empty string")
    created_at = record.get("createdAt")
    if not isinstance(created_at, str) or created_at_instant(created_at) is None:
        return _problem(line, "header.createdAt must be an ISO timestamp with a time zone")
    if "parentSession" in record and not _is_text(record["parentSession"]):
        return _problem(line, "header.parentSession must be a non-empty string when present")
    if "seedCalls" in record:
        if not _is_count(record["seedCalls"], 0):
            return _problem(line, "header.seedCalls must be a non-negative safe integer")
        if "parentSession" not in record:
            return _problem(line, "header.seedCalls requires header.parentSession")
    if "callKey" in record and not _is_text(record["callKey"]):
        return _problem(line, "header.callKey must be a non-empty string when present")
    if "firstCallOrdinal" in record and not _is_count(record["firstCallOrdinal"], 0):
        return _problem(line, "header.firstCallOrdinal must be a non-negative safe integer")
    return None


def _read_header(line: int, record: dict[str, JsonValue]) -> Result[_ParseState, FormatProblem]:
    """Validate the header record and start the fold."""
    problem = _header_problem(line, record)
    if problem is not None:
        return Failure(problem)
    parent = record.get("parentSession")
    seed = record.get("seedCalls")
    key = record.get("callKey")
    ordinal = record.get("firstCallOrdinal")
    header = SessionLogHeader(
        id=str(record["id"]),
        created_at=str(record["createdAt"]),
        parent_session=parent if isinstance(parent, str) else None,
        seed_calls=seed if isinstance(seed, int) else None,
        call_key=key if isinstance(key, str) else None,
        first_call_ordinal=ordinal if isinstance(ordinal, int) else None,
    )
    return _check_hash(line, record).map(lambda digest: _ParseState(header, (), None, digest))


def _entry_problem(
    line: int, record: dict[str, JsonValue], state: _ParseState
) -> FormatProblem | None:
    """The first rule an entry record breaks given the calls read so far, or None."""
    kind = record.get("kind")
    allowed = _ENTRY_KEYS.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        return _problem(line, "is not a session-log entry")
    unknown = _unknown_key(record, allowed)
    if unknown is not None:
        return _problem(line, f"{unknown} is not supported")
    call = record.get("call")
    if not _is_count(call, 1):
        return _problem(line, "call must be a positive safe integer")
    open_call = state.open_call
    if kind == REQUEST_KIND:
        if open_call is not None:
            return _problem(line, f"call {open_call.index} has no response before a new request")
        if call != len(state.calls) + 1:
            return _problem(line, f"expected a request for call {len(state.calls) + 1}")
        if "request" not in record:
            return _problem(line, "request is missing")
        if not is_digest(record.get("requestFingerprint")):
            return _problem(line, "requestFingerprint must be a lowercase SHA-256 digest")
        return _match_problem(line, record) or _chain_problem(line, record, state)
    if open_call is None or call != open_call.index:
        return _problem(line, f"{kind} does not follow the request of call {call}")
    if kind == CHUNK_KIND and "chunk" not in record:
        return _problem(line, "chunk is missing")
    if kind == RESPONSE_KIND:
        streamed = record.get("streamed")
        count = record.get("chunks")
        if not isinstance(streamed, bool):
            return _problem(line, "streamed must be a boolean")
        if not _is_count(count, 0) or count != open_call.chunk_count:
            return _problem(line, "chunks must count the chunk entries of the call")
        if not streamed and count != 1:
            return _problem(line, "a non-streamed response has exactly one chunk")
        if "meta" in record and not isinstance(record["meta"], dict):
            return _problem(line, "meta must be an object when present")
        redaction = _redactions_problem(line, record, open_call)
        if redaction is not None:
            return redaction
    return _chain_problem(line, record, state)


def _chain_problem(
    line: int, record: dict[str, JsonValue], state: _ParseState
) -> FormatProblem | None:
    """An entry whose previousHash is not the previous record's hash."""
    if record.get("previousHash") != state.previous_hash:
        return _problem(line, "hash chain points to the wrong previous record")
    return None


def _match_problem(line: int, record: dict[str, JsonValue]) -> FormatProblem | None:
    """The unredacted request's fingerprints: both digests, or neither."""
    exact, binding = record.get("matchFingerprint"), record.get("matchBindingFingerprint")
    if exact is None and binding is None:
        return None
    if not is_digest(exact) or not is_digest(binding):
        return _problem(
            line, "matchFingerprint and matchBindingFingerprint must both be SHA-256 digests"
        )
    return None


def _redactions_problem(
    line: int, record: dict[str, JsonValue], open_call: _OpenCall
) -> FormatProblem | None:
    """`redactions` counts request and response matches; a redacted request has match prints."""
    redactions = record.get("redactions")
    request_count = 0
    if redactions is not None:
        if not isinstance(redactions, dict) or set(redactions) != _REDACTION_KEYS:
            return _problem(line, "redactions must be an object with request and response")
        counts = [redactions["request"], redactions["response"]]
        if not all(_is_count(count, 0) for count in counts) or counts == [0, 0]:
            return _problem(line, "redactions must hold non-negative safe integers, not both 0")
        request_count = counts[0] if isinstance(counts[0], int) else 0
    if (request_count > 0) != (open_call.match_fingerprint is not None):
        return _problem(
            line, "a redacted request needs matchFingerprint, and only a redacted one has it"
        )
    return None


def _apply_entry(
    line: int, record: dict[str, JsonValue], state: _ParseState, digest: str
) -> Result[_ParseState, FormatProblem]:
    """Fold one validated entry into the state."""
    kind = record["kind"]
    open_call = state.open_call
    if kind == REQUEST_KIND:
        request = record["request"]
        claimed = str(record["requestFingerprint"])
        match_exact = record.get("matchFingerprint")
        match_binding = record.get("matchBindingFingerprint")
        opened = _OpenCall(
            len(state.calls) + 1,
            request,
            claimed,
            0,
            None,
            match_exact if isinstance(match_exact, str) else None,
            match_binding if isinstance(match_binding, str) else None,
        )
        return (
            fingerprint(request)
            .alt(lambda _: _problem(line, "request is not lossless canonical JSON"))
            .bind(
                lambda actual: (
                    Success(replace(state, open_call=opened, previous_hash=digest))
                    if actual == claimed
                    else Failure(_problem(line, "requestFingerprint does not match the request"))
                )
            )
        )
    assert open_call is not None  # _entry_problem guarantees an open call here
    if kind == CHUNK_KIND:
        grown = replace(
            open_call,
            chunk_count=open_call.chunk_count + 1,
            newest_chunk=_ChunkLink(record["chunk"], open_call.newest_chunk),
        )
        return Success(replace(state, open_call=grown, previous_hash=digest))
    finished = RecordedCall(
        index=open_call.index,
        request=open_call.request,
        request_fingerprint=open_call.request_fingerprint,
        streamed=bool(record["streamed"]),
        chunks=_chunks_in_order(open_call.newest_chunk),
        meta=record.get("meta"),
        match_fingerprint=open_call.match_fingerprint,
        match_binding_fingerprint=open_call.match_binding_fingerprint,
        request_redactions=_redaction_count(record, "request"),
        response_redactions=_redaction_count(record, "response"),
    )
    return Success(
        replace(state, calls=(*state.calls, finished), open_call=None, previous_hash=digest)
    )


def _redaction_count(record: dict[str, JsonValue], part: str) -> int:
    """A validated response entry's redaction count for the request or the response."""
    redactions = record.get("redactions")
    count = redactions.get(part) if isinstance(redactions, dict) else None
    return count if isinstance(count, int) else 0


def _read_entry(
    line: int, record: dict[str, JsonValue], state: _ParseState
) -> Result[_ParseState, FormatProblem]:
    """Validate one entry against the fold state, verify its hash and fold it in."""
    problem = _entry_problem(line, record, state)
    if problem is not None:
        return Failure(problem)
    return _check_hash(line, record).bind(lambda digest: _apply_entry(line, record, state, digest))


def _step(
    line: int, text: str, state: _ParseState | None
) -> Result[_ParseState | None, FormatProblem]:
    """Parse one non-blank line and fold it: the first is the header, the rest are entries."""

    def fold(value: JsonValue) -> Result[_ParseState | None, FormatProblem]:
        if not isinstance(value, dict):
            return Failure(_problem(line, "must be a JSON object"))
        read = _read_header(line, value) if state is None else _read_entry(line, value, state)
        return read.bind(partial(_laid_out, line, text, value))

    return parse_json(text).alt(lambda _: _problem(line, "is not valid JSON")).bind(fold)


#: A line whose value has a canonical text but is not laid out as it (spaces, key order,
#: number or string spellings): the docs promise one canonical JSON object per line.
_NOT_CANONICAL: Final = "is not canonical JSON text (one canonical JSON object per line)"


def _laid_out(
    line: int, text: str, value: JsonValue, folded: _ParseState | None
) -> Result[_ParseState | None, FormatProblem]:
    """A record every rule accepted must also be written as its canonical text."""
    if canonical_json(value).map(text.__ne__).value_or(False):
        return Failure(_problem(line, _NOT_CANONICAL))
    return Success(folded)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """Number the non-blank lines physically; split on LF, drop a CR before it."""
    for number, raw in enumerate(text.split("\n"), start=1):
        if raw.strip(_BLANK):
            yield number, raw.removesuffix("\r")


def _finish(state: _ParseState | None, source: str | None) -> Result[SessionLog, FormatProblem]:
    """Check what only the whole file can show, then build the log."""
    if state is None or state.header is None:
        return Failure(FormatProblem("session log is empty", code=SESSION_LOG_FORMAT))
    if state.open_call is not None:
        return Failure(
            FormatProblem(
                f"call {state.open_call.index} has a request but no response",
                code=SESSION_LOG_FORMAT,
                call_index=state.open_call.index,
            )
        )
    seed = state.header.seed_calls
    if seed is not None and seed > len(state.calls):
        return Failure(
            FormatProblem(
                f"header.seedCalls {seed} is beyond the {len(state.calls)} recorded call(s)",
                code=SESSION_LOG_FORMAT,
            )
        )
    return Success(SessionLog(state.header, state.calls, source))


def parse_session_log(
    data: str | bytes, source: str | None = None
) -> Result[SessionLog, FormatProblem]:
    """Parse and chain-verify a session log; failures name the physical line."""
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            return Failure(_problem(line, "is not valid UTF-8"))
    else:
        text = data
    folded: Result[_ParseState | None, FormatProblem] = Success(None)
    for number, line_text in _lines(text):
        folded = folded.bind(partial(_step, number, line_text))
    return folded.bind(lambda state: _finish(state, source))


def _not_lossless(_: object) -> FormatProblem:
    """The encoder's error for values canonical JSON cannot hold."""
    return FormatProblem(
        "session log value is not lossless canonical JSON", code=SESSION_LOG_FORMAT
    )


def _emit(
    lines: list[str], record: dict[str, JsonValue], previous: str | None
) -> Result[str | None, FormatProblem]:
    """Append one record's canonical line (entries point at `previous`); answer its hash."""
    linked = record if previous is None else {**record, "previousHash": previous}

    def write(digest: str) -> Result[str | None, FormatProblem]:
        line = canonical_json({**linked, "hash": digest}).alt(_not_lossless)
        return line.map(lambda text: lines.append(text + "\n")).map(lambda _: digest)

    return own_hash(linked).alt(_not_lossless).bind(write)


def _chain(records: list[dict[str, JsonValue]]) -> Result[str, FormatProblem]:
    """Link records (header first) by previousHash, hash each, and join canonical lines."""
    lines: list[str] = []
    tip: Result[str | None, FormatProblem] = Success(None)
    for record in records:
        tip = tip.bind(partial(_emit, lines, record))
    return tip.map(lambda _: "".join(lines))


def header_record(header: SessionLogHeader) -> dict[str, JsonValue]:
    """The on-disk header object without its hash."""
    return {
        "kind": HEADER_KIND,
        "format": SESSION_LOG_FORMAT_NAME,
        "version": SESSION_LOG_VERSION,
        "id": header.id,
        "createdAt": header.created_at,
        **present(
            ("parentSession", header.parent_session),
            ("seedCalls", header.seed_calls),
            ("callKey", header.call_key),
            ("firstCallOrdinal", header.first_call_ordinal),
        ),
    }


def _request_record(call: RecordedCall) -> dict[str, JsonValue]:
    """The request entry; the unredacted request's fingerprints only as a pair."""
    record: dict[str, JsonValue] = {
        "kind": REQUEST_KIND,
        "call": call.index,
        "requestFingerprint": call.request_fingerprint,
        "request": call.request,
    }
    if call.match_fingerprint is not None and call.match_binding_fingerprint is not None:
        record["matchFingerprint"] = call.match_fingerprint
        record["matchBindingFingerprint"] = call.match_binding_fingerprint
    return record


def _response_record(call: RecordedCall) -> dict[str, JsonValue]:
    """The response entry: chunk count, optional meta, redaction counts unless both are 0."""
    redacted = call.request_redactions or call.response_redactions
    redactions: JsonValue = (
        {"request": call.request_redactions, "response": call.response_redactions}
        if redacted
        else None
    )
    return {
        "kind": RESPONSE_KIND,
        "call": call.index,
        "streamed": call.streamed,
        "chunks": len(call.chunks),
        **present(("meta", call.meta), ("redactions", redactions)),
    }


def call_records(call: RecordedCall) -> list[dict[str, JsonValue]]:
    """The on-disk entries of one call (request, chunks, response) without chain fields."""
    chunks = [{"kind": CHUNK_KIND, "call": call.index, "chunk": chunk} for chunk in call.chunks]
    return [_request_record(call), *chunks, _response_record(call)]


def encode_session_log(log: SessionLog) -> Result[str, FormatProblem]:
    """Write a log as canonical, hash-chained JSONL text that `parse_session_log` accepts."""
    records = [header_record(log.header)]
    for call in log.calls:
        records.extend(call_records(call))
    return _chain(records).bind(lambda text: parse_session_log(text).map(lambda _: text))
