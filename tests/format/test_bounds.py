"""Parser bounds: line length, memory per line, hostile paths, deep nesting (issue 12, FMT-18).

Every case fails closed with CassetteFormatError naming the line or the path, or works.
"""

from __future__ import annotations

import gc
import hashlib
import io
import os
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
import pytest
from cassette_canonical import canonical_json
from cassette_format import (
    CassetteFormatError,
    load_cassette,
    parse_cassette,
    read_cassette,
    summarize,
    verify_file,
    verify_stream,
)
from cassette_format.read.lines import MAX_LINE_BYTES
from returns.result import Failure, Success

from format.builders import make_body, make_header

HEADER = make_header()
HEADER_LINE = canonical_json(HEADER.to_json()).unwrap().encode() + b"\n"


def _rehashed(records: list[dict[str, Any]]) -> bytes:
    """Lines whose hashes and links are recomputed after an edit."""
    previous = None
    lines = []
    for record in records:
        if previous is not None:
            record["previousHash"] = previous
        body = {key: value for key, value in record.items() if key != "hash"}
        text = canonical_json(body).unwrap()
        record["hash"] = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
        previous = record["hash"]
        lines.append(canonical_json(record).unwrap().encode())
    return b"\n".join(lines) + b"\n"


def _with_result_extra(*extras: object) -> bytes:
    """A valid cassette of one repeated request group, each result carrying one extra."""
    from cassette_format import interaction_line, seal_interaction

    records: list[dict[str, Any]] = [orjson.loads(HEADER_LINE)]
    previous = HEADER.hash
    for sequence, extra in enumerate(extras, start=1):
        body = make_body(sequence, request_tag="same", occurrence=sequence)
        sealed = seal_interaction(body, previous).unwrap()
        previous = sealed.hash
        record = orjson.loads(interaction_line(sealed).unwrap())
        record["outcome"]["result"]["extra"] = extra
        records.append(record)
    return _rehashed(records)


class _CountingRaw(io.RawIOBase):
    """A readable stream of a header line then `size` bytes of one endless line."""

    def __init__(self, size: int) -> None:
        self.prefix = HEADER_LINE
        self.remaining = size
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        if self.prefix:
            count = min(len(view), len(self.prefix))
            view[:count] = self.prefix[:count]
            self.prefix = self.prefix[count:]
        else:
            count = min(len(view), self.remaining)
            view[:count] = b"a" * count
            self.remaining -= count
        self.served += count
        return count


def test_over_long_line_is_refused_while_read() -> None:
    raw = _CountingRaw(4 * MAX_LINE_BYTES)
    result = verify_stream(io.BufferedReader(raw))
    assert isinstance(result, Failure)
    error = result.failure()
    assert error.message == f"line 2 is longer than {MAX_LINE_BYTES} bytes"
    assert error.line == 2
    assert raw.served < len(HEADER_LINE) + MAX_LINE_BYTES + 2 * io.DEFAULT_BUFFER_SIZE + 16


def test_line_at_the_limit_is_read_and_one_past_it_is_not() -> None:
    at_limit = HEADER_LINE + b" " * (MAX_LINE_BYTES - 1) + b"x\r\n"
    message = parse_cassette(at_limit).failure().message
    assert message == "line 2 is not valid JSON"
    past = HEADER_LINE + b" " * MAX_LINE_BYTES + b"x\n"
    assert parse_cassette(past).failure().message == f"line 2 is longer than {MAX_LINE_BYTES} bytes"
    text = past.decode()
    assert parse_cassette(text).failure().message == f"line 2 is longer than {MAX_LINE_BYTES} bytes"


def test_no_newline_giant_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "giant.cassette.jsonl"
    with path.open("wb") as handle:
        handle.write(HEADER_LINE)
        handle.truncate(len(HEADER_LINE) + MAX_LINE_BYTES + 10)  # a sparse run of NULs
    failure = read_cassette(path).failure()
    assert (failure.message, failure.line) == (f"line 2 is longer than {MAX_LINE_BYTES} bytes", 2)
    with pytest.raises(CassetteFormatError, match="line 2 is longer"):
        verify_file(path)


def _string_line_peak(length: int) -> float:
    """Peak traced bytes per input byte of parsing one non-canonical line of a long string."""
    data = _with_result_extra("ab" * (length // 2))
    lines = data.split(b"\n")
    lines[1] = b" " + lines[1]  # layout slack: the strict parser and canonical_json run
    data = b"\n".join(lines)
    gc.collect()
    tracemalloc.start()
    try:
        assert isinstance(parse_cassette(data), Success)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / len(data)


def test_memory_per_line_is_a_small_constant_factor() -> None:
    """Issue 12: ~135-154 B per character before (the string regex kept per-char state)."""
    assert _string_line_peak(2_000_000) < 24


def test_escaped_strings_parse_in_linear_memory() -> None:
    extra = 'line\n\t"quoted" \u2028 😀 ' * 50_000
    data = _with_result_extra(extra)
    lines = data.split(b"\n")
    lines[1] = b" " + lines[1]
    gc.collect()
    tracemalloc.start()
    try:
        parsed = parse_cassette(b"\n".join(lines))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(parsed, Success)
    assert parsed.unwrap().interactions[0].outcome.to_json()["result"]["extra"] == extra
    assert peak / len(data) < 24


@pytest.mark.parametrize("slack", [False, True])
def test_deep_results_work_in_parse_verify_and_summary(slack: bool) -> None:
    """CANON-9: no depth limit, so 100,000 levels load, verify and summarize.

    The repeated group's outcomes differ only at the innermost leaf, so the ambiguity
    count has to compare them whole (issue 12: a repr fallback recursed here).
    """
    deep: list[object] = []
    for leaf in ("one", "two"):
        value: object = leaf
        for _ in range(100_000):
            value = [value]
        deep.append(value)
    data = _with_result_extra(*deep)
    if slack:
        lines = data.split(b"\n")
        lines[1] = b" " + lines[1]
        data = b"\n".join(lines)
    cassette = parse_cassette(data).unwrap()
    summary = summarize(cassette)
    assert summary["interactions"] == 2
    assert summary["ambiguousGroups"] == 1
    assert verify_stream(io.BytesIO(data)).unwrap() == summary


def _refused(path: str) -> None:
    absolute = os.path.abspath(path)
    failure = read_cassette(path).failure()
    assert failure.message == f'cannot read cassette "{absolute}"'
    assert isinstance(failure.cause, OSError)
    with pytest.raises(CassetteFormatError) as raised:
        verify_file(path)
    assert raised.value.message == f'cannot read cassette "{absolute}"'
    with pytest.raises(CassetteFormatError):
        load_cassette(path)


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.cassette.jsonl"
    os.mkfifo(fifo)
    finished = threading.Event()
    errors: list[BaseException] = []

    def attempt() -> None:
        try:
            _refused(str(fifo))
        except BaseException as error:  # reported below
            errors.append(error)
        finally:
            finished.set()

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    if not finished.wait(120):
        # It blocked: give it a writer (and EOF) so the thread ends, then fail.
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("reading a FIFO blocked")
    worker.join()
    assert not errors, errors


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_devices_are_refused(device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"{device} is not on this system")
    _refused(device)


def test_directory_missing_loop_and_nul_paths_are_refused(tmp_path: Path) -> None:
    _refused(str(tmp_path))
    _refused(str(tmp_path / "missing" / "x.cassette.jsonl"))
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    _refused(str(loop))
    _refused(str(tmp_path / "nul\0byte"))


def test_unreadable_file_is_refused(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    path = tmp_path / "locked.cassette.jsonl"
    path.write_bytes(HEADER_LINE)
    path.chmod(0)
    _refused(str(path))


def test_regular_file_through_a_symlink_still_reads(tmp_path: Path) -> None:
    target = tmp_path / "real.cassette.jsonl"
    target.write_bytes(_with_result_extra("x"))
    alias = tmp_path / "alias.cassette.jsonl"
    alias.symlink_to(target)
    assert len(load_cassette(alias).interactions) == 1
    assert verify_file(alias)["interactions"] == 1


@pytest.mark.parametrize(
    "keys",
    [{"a": 1, "b": 2}, {"\uffff": 1, "\U0001f600": 2}],
    ids=["plain-extra", "utf16-ordered-extra"],
)
def test_relaid_line_does_not_make_an_identical_group_ambiguous(
    keys: dict[str, int], tmp_path: Path
) -> None:
    """FMT-19, CANON-3: one canonical and one relaid line with equal outcomes agree.

    A canonical line's outcome must be compared in its UTF-16 key order, as a non-canonical
    line's is; verify (compact keys, file and stream) and the loader's summary agree.
    """
    records = [orjson.loads(line) for line in _with_result_extra(keys, keys).splitlines()]
    records[2]["outcome"] = records[1]["outcome"]  # one group, two equal outcomes
    lines = _rehashed(records).split(b"\n")
    lines[2] = lines[2] + b" "  # the second member: same record, non-canonical layout
    data = b"\n".join(lines)
    target = tmp_path / "relaid.jsonl"
    target.write_bytes(data)
    loaded = summarize(parse_cassette(data).unwrap())["ambiguousGroups"]
    streamed = verify_stream(io.BytesIO(data)).unwrap()["ambiguousGroups"]
    assert (loaded, streamed, verify_file(target)["ambiguousGroups"]) == (0, 0, 0)
