"""Fuzzed cassettes fail closed in every tool (issue 12; FMT-18, CLI-11, ERR-1).

Real cassettes (the interop fixtures and ones built here, with results nested thousands
of levels deep) are mutated by hypothesis: byte flips, truncations, inserted tokens,
invalid UTF-8, duplicate members, huge numbers, deep nesting, line deletion and
repetition, with the hash chain optionally recomputed so the mutation reaches the checks
after it. Each input then goes through parse, verify, the CLI (`verify`, `inspect`,
`inspect --tree`, `diff`, in process) and replay load. Only documented outcomes may
appear: a result or FormatProblem (raised as CassetteFormatError) from the library, a
CassetteError from replay load, exit codes 0/1/2 from the CLI (0/1 for verify and inspect)
with nothing on stdout on failure, and the same verdict from every reader. Hypothesis's
`deadline` bounds each input's time.

CASSETTE_FUZZ_EXAMPLES (default 25) scales the run; CASSETTE_FUZZ_DEADLINE_MS (default
10000) sets the per-input bound; CASSETTE_FUZZ_MAX_DEPTH (default 20000) the deepest
injected nesting.
"""

from __future__ import annotations

import asyncio
import hashlib
import io
import os
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from cassette_canonical import canonical_json, parse_json
from cassette_cli import main
from cassette_format import (
    CassetteError,
    CassetteFormatError,
    FormatProblem,
    parse_cassette,
    summarize,
    verify_stream,
)
from cassette_provider import ProviderRegistry, ReplayConfig, install_cassette
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

INTEROP = Path("/work/shared/interop/cassettes")
if not INTEROP.is_dir():  # a clean clone elsewhere: the fixtures live beside the repo
    INTEROP = Path(__file__).resolve().parents[3] / "shared" / "interop" / "cassettes"

EXAMPLES = int(os.environ.get("CASSETTE_FUZZ_EXAMPLES", "25"))
DEADLINE_MS = int(os.environ.get("CASSETTE_FUZZ_DEADLINE_MS", "10000"))
MAX_DEPTH = int(os.environ.get("CASSETTE_FUZZ_MAX_DEPTH", "20000"))


def _rehashed(lines: list[bytes]) -> list[bytes] | None:
    """The lines with every hash and link recomputed, or None if one is not JSON."""
    records: list[Any] = []
    for line in lines:
        parsed = parse_json(line)
        if not isinstance(parsed, Success) or not isinstance(parsed.unwrap(), dict):
            return None
        records.append(parsed.unwrap())
    previous: str | None = None
    out: list[bytes] = []
    for record in records:
        if previous is not None:
            record["previousHash"] = previous
        body = {key: value for key, value in record.items() if key != "hash"}
        text = canonical_json(body)
        if not isinstance(text, Success):
            return None
        record["hash"] = "sha256:" + hashlib.sha256(text.unwrap().encode()).hexdigest()
        previous = record["hash"]
        out.append(canonical_json(record).unwrap().encode())
    return out


def _nested(depth: int, leaf: object, *, objects: bool) -> object:
    value = leaf
    for _ in range(depth):
        value = {"k": value} if objects else [value]
    return value


def _deep_seed(source: str, depth: int, *, objects: bool) -> bytes:
    """A valid cassette whose results hold distinct values nested `depth` levels."""
    lines = (INTEROP / source).read_bytes().splitlines()
    records: list[Any] = [parse_json(line).unwrap() for line in lines if line.strip()]
    for index, record in enumerate(records[1:]):
        outcome: Any = record["outcome"]
        if outcome.get("kind") == "result":
            outcome["result"]["extra"] = _nested(depth, f"leaf {index}", objects=objects)
    rehashed = _rehashed([canonical_json(record).unwrap().encode() for record in records])
    assert rehashed is not None
    return b"\n".join(rehashed) + b"\n"


def _seeds() -> list[bytes]:
    files = sorted(INTEROP.glob("*.jsonl"))
    seeds = [path.read_bytes() for path in files]
    seeds.append(_deep_seed("valid-ambiguous-group.cassette.jsonl", 1_200, objects=False))
    seeds.append(_deep_seed("valid-metadata-basic.cassette.jsonl", 1_500, objects=True))
    return seeds


SEEDS = _seeds()
DIFF_BASE = INTEROP / "valid-metadata-basic.cassette.jsonl"

_TOKENS = [
    b'"',
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",  # a UTF-8-encoded surrogate
    b"\xef\xbb\xbf",  # a BOM
    b"\x00",
    b"\r",
    b"\n",
    b"\r\n",
    b" ",
    b"\xe2\x80\xa8",  # U+2028
    b"-0",
    b"1e400",
    b"-1e-400",
    b"1E+16",
    b"123456789012345678901234567890",
    b"9007199254740993",
    b"0.1e-6",
    b"NaN",
    b"true",
    b"null",
]
_HUGE = [1e300, -1e300, 1.7976931348623157e308, 2**64, 2**53 + 1, -(2**63), 1e-320, 0.1]
_FIELDS = ["durationMs", "startLatencyMs", "signalAbortedAtMs", "sequence", "occurrence"]

Draw = st.DrawFn


def _flip(draw: Draw, data: bytes) -> bytes:
    if not data:
        return data
    position = draw(st.integers(0, len(data) - 1))
    bit = draw(st.integers(0, 7))
    return data[:position] + bytes([data[position] ^ (1 << bit)]) + data[position + 1 :]


def _truncate(draw: Draw, data: bytes) -> bytes:
    return data[: draw(st.integers(0, len(data)))]


def _insert(draw: Draw, data: bytes) -> bytes:
    position = draw(st.integers(0, len(data)))
    token = draw(st.sampled_from(_TOKENS)) * draw(st.integers(1, 3))
    return data[:position] + token + data[position:]


def _line_edit(draw: Draw, data: bytes) -> bytes:
    lines = data.split(b"\n")
    index = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["delete", "repeat", "swap", "blank"]))
    if kind == "delete":
        del lines[index]
    elif kind == "repeat":
        lines.insert(index, lines[index])
    elif kind == "swap" and index + 1 < len(lines):
        lines[index], lines[index + 1] = lines[index + 1], lines[index]
    else:
        lines.insert(index, b" \t\xc2\xa0")
    return b"\n".join(lines)


def _deep_text(draw: Draw, data: bytes) -> bytes:
    """Raw deep nesting spliced in: balanced, unbalanced or unterminated."""
    depth = draw(st.sampled_from([1_001, 5_000, MAX_DEPTH]))
    opener, closer = draw(st.sampled_from([(b"[", b"]"), (b'{"a":', b"}")]))
    closers = draw(st.sampled_from([depth, depth - 1, 0]))
    blob = opener * depth + b"1" + closer * closers
    position = draw(st.integers(0, len(data)))
    return data[:position] + blob + data[position:]


def _structured(draw: Draw, data: bytes) -> bytes:
    """A JSON-level edit of one record (deep value, duplicate member, huge number)."""
    lines = [line for line in data.split(b"\n") if line.strip()]
    if not lines:
        return data
    index = draw(st.integers(0, len(lines) - 1))
    parsed = parse_json(lines[index])
    if not isinstance(parsed, Success) or not isinstance(parsed.unwrap(), dict):
        return data
    record: Any = parsed.unwrap()
    kind = draw(st.sampled_from(["deep", "duplicate", "number", "drop", "retype"]))
    if kind == "duplicate":
        member = draw(st.sampled_from(sorted(record) or ["kind"]))
        text = canonical_json(record).unwrap().encode()
        lines[index] = (
            b"{" + canonical_json({member: None}).unwrap().encode()[1:-1] + b"," + text[1:]
        )
        return b"\n".join(lines) + b"\n"
    if kind == "deep":
        depth = draw(st.sampled_from([999, 1_000, 1_025, 3_000, MAX_DEPTH]))
        target = record.get("outcome") if isinstance(record.get("outcome"), dict) else record
        key = draw(st.sampled_from(["result", "error", "extra", "request"]))
        target[key] = _nested(depth, "x", objects=draw(st.booleans()))
    elif kind == "number":
        holder = record.get("timing") if isinstance(record.get("timing"), dict) else record
        holder[draw(st.sampled_from(_FIELDS))] = draw(st.sampled_from(_HUGE))
    elif kind == "drop" and record:
        del record[draw(st.sampled_from(sorted(record)))]
    else:
        key = draw(st.sampled_from(sorted(record) or ["kind"]))
        record[key] = draw(st.sampled_from([None, True, 0, "", [], {}, "x" * 70]))
    rendered = canonical_json(record)
    if not isinstance(rendered, Success):  # e.g. 2**53 + 1, which no double holds (D-1)
        return data
    lines[index] = rendered.unwrap().encode()
    if draw(st.booleans()):
        rehashed = _rehashed(lines)
        lines = lines if rehashed is None else rehashed
    return b"\n".join(lines) + b"\n"


_MUTATIONS = [_flip, _truncate, _insert, _line_edit, _deep_text, _structured]


@st.composite
def mutated_cassettes(draw: Draw) -> bytes:
    data: bytes = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        data = draw(st.sampled_from(_MUTATIONS))(draw, data)
    return data


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


#: Refusals replay load documents for cassettes that verify (REPLAY-11, REDACT-9, issue 12).
_REPLAY_REFUSALS = frozenset({"CASSETTE_AMBIGUOUS", "CASSETTE_MISMATCH", "CASSETTE_EMPTY"})


def _replay_verdict(path: str) -> str | None:
    """Load for replay and dispose: None once loaded, else the code (only CassetteError escapes)."""
    try:
        handle = install_cassette(
            ProviderRegistry(), ReplayConfig(file=path, assert_consumed=False)
        )
    except CassetteError as error:
        return error.code
    asyncio.run(handle.dispose())
    return None


def _check_everywhere(data: bytes, directory: str) -> None:
    parsed = parse_cassette(data)
    assert isinstance(parsed, Success | Failure)
    if isinstance(parsed, Failure):
        assert type(parsed.failure()) is FormatProblem
    verified = verify_stream(io.BytesIO(data))
    assert isinstance(verified, Success) == isinstance(parsed, Success)
    if isinstance(parsed, Success):
        assert verified.unwrap() == summarize(parsed.unwrap())
    else:
        assert verified.failure() == parsed.failure()  # same message, line and path

    path = os.path.join(directory, "fuzzed.cassette.jsonl")
    with open(path, "wb") as handle:
        handle.write(data)
    valid = isinstance(parsed, Success)
    for argv in (
        ("verify", path),
        ("verify", "--json", path),
        ("inspect", path),
        ("inspect", "--json", "--show-calls", path),
        ("inspect", "--tree", "--color", "always", path),
    ):
        code, out, err = _cli(*argv)
        assert code == (0 if valid else 1), (argv, err)
        assert (out == "") != valid, argv
        assert (err == "") == valid, argv
    for argv in (
        ("diff", path, path),
        ("diff", "--json", "--show-calls", str(DIFF_BASE), path),
        ("diff", path, str(DIFF_BASE)),
    ):
        code, out, err = _cli(*argv)
        assert code in (0, 1, 2), argv
        assert (code == 1) == (not valid), (argv, err)
        assert (out == "") == (code == 1), argv
    verdict = _replay_verdict(path)
    if valid:
        assert verdict is None or verdict in _REPLAY_REFUSALS, verdict
    else:
        assert verdict == "CASSETTE_FORMAT", verdict


@settings(
    max_examples=EXAMPLES,
    deadline=timedelta(milliseconds=DEADLINE_MS),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=mutated_cassettes())
def test_mutated_cassettes_fail_closed_everywhere(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as directory:
        _check_everywhere(data, directory)


@pytest.mark.parametrize("index", range(len(SEEDS)))
def test_every_seed_is_judged_alike_by_every_tool(index: int, tmp_path: Path) -> None:
    _check_everywhere(SEEDS[index], str(tmp_path))


def test_cli_refuses_a_fifo_without_blocking(tmp_path: Path) -> None:
    """A FIFO with no writer would block an ordinary open; the CLI exits 1 at once."""
    fifo = tmp_path / "pipe.cassette.jsonl"
    os.mkfifo(fifo)
    for argv in (("verify", str(fifo)), ("inspect", str(fifo)), ("diff", str(fifo), str(fifo))):
        code, out, err = _cli(*argv)
        assert (code, out) == (1, ""), argv
        assert err.startswith(f'cannot read cassette "{fifo}"'), argv
    with pytest.raises(CassetteFormatError, match="cannot read cassette"):
        install_cassette(ProviderRegistry(), ReplayConfig(file=str(fifo)))
