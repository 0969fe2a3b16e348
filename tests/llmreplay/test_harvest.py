"""Harvest: highest generation per role, primary first, children by createdAt then id."""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_provider.models import (
    SessionLogFormatError,
    harvest_session_logs,
    harvest_session_logs_sync,
    write_session_logs_sync,
)
from cassette_topology.sessions import (
    SESSION_HARVEST,
    SESSION_LOG_FORMAT,
    SESSION_LOG_READ,
    SessionLog,
    created_at_instant,
    derive_scripts,
    encode_session_log,
    order_primary_first,
)
from llmreplay.builders import log


def _ids(logs: tuple[SessionLog, ...]) -> list[str]:
    return [entry.header.id for entry in logs]


def _write(path: Path, session_log: SessionLog) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(encode_session_log(session_log).unwrap(), encoding="utf-8")


def test_primary_first_then_children_by_created_at() -> None:
    # LLMREPLAY-5, LLMREPLAY-9
    logs = [
        log("late", "2026-08-18T03:00:09.000Z", [], parent="p"),
        log("early", "2026-08-18T03:00:01.000Z", [], parent="p"),
        log("p", "2026-08-18T03:00:05.000Z", []),  # the primary leads even when it is later
    ]
    assert _ids(order_primary_first(logs).unwrap()) == ["p", "early", "late"]


def test_equal_created_at_ties_break_by_recorded_id() -> None:
    # LLMREPLAY-5: ties by id, in UTF-16 code-unit order ("𐀀" sorts before "￿")
    same = "2026-08-18T03:00:01.000Z"
    logs = [
        log("￿", same, [], parent="p"),
        log("b", same, [], parent="p"),
        log("𐀀", same, [], parent="p"),
        log("a", same, [], parent="p"),
        log("p", same, []),
    ]
    assert _ids(order_primary_first(logs).unwrap()) == ["p", "a", "b", "𐀀", "￿"]
    assert _ids(order_primary_first(reversed(logs)).unwrap()) == ["p", "a", "b", "𐀀", "￿"]


def test_created_at_compares_instants_not_text() -> None:
    # an offset-bearing timestamp is ordered by the instant it denotes
    logs = [
        log("utc", "2026-08-18T03:00:00.500Z", [], parent="p"),
        log("offset", "2026-08-18T05:00:00.100+02:00", [], parent="p"),
        log("p", "2026-08-18", []),
    ]
    assert _ids(order_primary_first(logs).unwrap()) == ["p", "offset", "utc"]
    assert created_at_instant("2026-02-30T00:00:00Z") is None


@pytest.mark.parametrize(
    ("logs", "fragment"),
    [
        ([], "no session logs"),
        ([log("c", "2026-08-18", [], parent="p")], "found no"),
        ([log("a", "2026-08-18", []), log("b", "2026-08-18", [])], "found 2"),
        ([log("p", "2026-08-18", []), log("p", "2026-08-19", [], parent="p")], "more than one"),
    ],
)
def test_harvest_needs_exactly_one_primary_and_distinct_ids(
    logs: list[SessionLog], fragment: str
) -> None:
    error = order_primary_first(logs).failure()
    assert error.code == SESSION_HARVEST
    assert fragment in error.message


def test_directory_harvest_selects_v10_over_v2_in_every_directory(tmp_path: Path) -> None:
    # LLMREPLAY-2, LLMREPLAY-9
    _write(tmp_path / "root" / "session.v2.jsonl", log("stale-root", "2026-08-18", []))
    _write(tmp_path / "root" / "session.v10.jsonl", log("root", "2026-08-18T00:00:00Z", []))
    _write(
        tmp_path / "root" / "session.1.jsonl",
        log("child-b", "2026-08-18T00:00:02Z", [], parent="root"),
    )
    # a child persisted in its own session directory, with a missing generation 0
    _write(
        tmp_path / "root" / "kids" / "session.v3.jsonl",
        log("child-a", "2026-08-18T00:00:01Z", [], parent="root"),
    )
    (tmp_path / "root" / "notes.jsonl").write_text("not a session log\n")
    (tmp_path / "root" / "session.v0.jsonl").write_text("not canonical, never read\n")
    harvested = harvest_session_logs_sync(tmp_path)
    assert _ids(harvested) == ["root", "child-a", "child-b"]
    assert harvested[0].source is not None
    assert harvested[0].source.endswith("session.v10.jsonl")


async def test_async_harvest_matches_the_sync_one(tmp_path: Path) -> None:
    _write(tmp_path / "session.jsonl", log("root", "2026-08-18T00:00:00Z", []))
    assert _ids(await harvest_session_logs(tmp_path)) == ["root"]


def test_harvest_failures_are_located_and_coded(tmp_path: Path) -> None:
    with pytest.raises(SessionLogFormatError) as missing:
        harvest_session_logs_sync(tmp_path / "absent")
    assert missing.value.code == SESSION_LOG_READ
    (tmp_path / "session.jsonl").write_text('{"kind":"session-log/header"}\n')
    with pytest.raises(SessionLogFormatError) as broken:
        harvest_session_logs_sync(tmp_path)
    assert broken.value.code == SESSION_LOG_FORMAT
    assert "session.jsonl: line 1:" in str(broken.value)


def test_write_then_harvest_round_trips_roles_and_generations(tmp_path: Path) -> None:
    # LLMREPLAY-10: next generation per role, older ones kept, stale roles pruned
    first = [
        log("p", "2026-08-18T00:00:00Z", [({"q": 1}, {"a": 1})]),
        log("c1", "2026-08-18T00:00:01Z", [], parent="p"),
        log("c2", "2026-08-18T00:00:02Z", [], parent="p"),
    ]
    names = [p.name for p in write_session_logs_sync(tmp_path, first)]
    assert names == ["session.jsonl", "session.1.jsonl", "session.2.jsonl"]
    second = [
        log("p2", "2026-08-19T00:00:00Z", []),
        log("k", "2026-08-19T00:00:01Z", [], parent="p2"),
    ]
    names = [p.name for p in write_session_logs_sync(tmp_path, second)]
    assert names == ["session.v1.jsonl", "session.1.v1.jsonl"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "session.1.jsonl",
        "session.1.v1.jsonl",
        "session.jsonl",
        "session.v1.jsonl",
    ]
    assert _ids(harvest_session_logs_sync(tmp_path)) == ["p2", "k"]


def test_script_ordinals_follow_the_harvest_order() -> None:
    # LLMREPLAY-3
    scripts = derive_scripts(
        [
            log("c2", "2026-08-18T00:00:02Z", [({"q": "c2"}, {"a": "c2"})], parent="p"),
            log("p", "2026-08-18T00:00:00Z", [({"q": "p"}, {"a": "p"})]),
            log("c1", "2026-08-18T00:00:01Z", [({"q": "c1"}, {"a": "c1"})], parent="p"),
        ]
    ).unwrap()
    assert [(s.ordinal, s.recorded_session) for s in scripts] == [(0, "p"), (1, "c1"), (2, "c2")]
