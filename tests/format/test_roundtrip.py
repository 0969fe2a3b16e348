"""A Python-written cassette re-parses to equal values; its lines are canonical (FMT-1, WRITE-7)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from cassette_canonical import canonical_json
from cassette_format import (
    CassetteWriter,
    RequestStorage,
    load_cassette,
    parse_cassette,
    summarize,
)

from format.builders import make_body, make_header

KINDS = ["result", "start-error", "result-error", "result", "result"]


@pytest.mark.parametrize("storage", ["metadata", "full"])
async def test_written_cassette_reparses_to_equal_values(
    tmp_path: Path, storage: RequestStorage
) -> None:  # FMT-1, FMT-22, WRITE-3, WRITE-7
    path = tmp_path / "c.cassette.jsonl"
    header = make_header(storage)
    written = []
    async with await CassetteWriter.open(path, header, "create") as writer:
        for sequence, kind in enumerate(KINDS, start=1):
            written.append(await writer.append(make_body(sequence, storage=storage, kind=kind)))
    loaded = load_cassette(path)
    assert loaded.header == header
    assert loaded.interactions == tuple(written)
    assert loaded.source == str(path)
    data = path.read_bytes()
    assert data.endswith(b"\n")
    for line in data.splitlines():
        assert canonical_json(orjson.loads(line)).unwrap().encode() == line
    records = [loaded.header.to_json(), *(i.to_json() for i in loaded.interactions)]
    assert [canonical_json(r).unwrap().encode() for r in records] == data.splitlines()
    summary = summarize(loaded)
    assert summary["interactions"] == 5
    # results 1, 4, 5 stop with max-tokens, completed, max-tokens; 2 and 3 are error kinds
    assert (summary["completed"], summary["failed"], summary["aborted"]) == (1, 4, 0)
    assert summary["redactedResults"] == 2
    assert summary["durationMs"] == 15.25
    assert parse_cassette(data.decode()).unwrap() == parse_cassette(data).unwrap()


def test_created_header_is_fmt22_shaped() -> None:  # FMT-22
    header = make_header()
    assert header.created_at == "2026-08-18T03:00:00.123Z"
    assert header.hash.startswith("sha256:")
