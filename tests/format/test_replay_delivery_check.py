"""The lazy reader's delivery check: unchanged bytes decode at once, all else as the loader reads.

Issue 24: `ReplayIndex.interaction` proves a line unchanged by its hash alone, without
re-serializing it. These cases are where that proof must step aside: numbers orjson reads
otherwise than JSON.parse, a line that was never canonical, and a line changed after the
pass into the same record written otherwise (a duplicate member), which the loader refuses.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from cassette_format import ResultOutcome, interaction_line, read_cassette
from cassette_format.read.replay_index import read_replay_index
from cassette_format.records.frozen_json import freeze_object
from returns.result import Failure

from format.builders import cassette_bytes, make_body


def _write(path: Path, structured: object) -> None:
    """Two calls; the second's result carries `structured`."""
    plain = make_body(1, request_tag="t1")
    outcome = ResultOutcome(
        result=freeze_object(
            {"output": [], "stopReason": "completed", "structured": structured}  # type: ignore[dict-item]
        ),
        redactions=0,
    )
    special = dataclasses.replace(make_body(2, request_tag="t2"), outcome=outcome)
    path.write_bytes(cassette_bytes([plain, special]))


def _loaded_structured(path: Path, position: int) -> object:
    outcome = read_cassette(path).unwrap().interactions[position].outcome
    assert isinstance(outcome, ResultOutcome)
    return outcome.result["structured"]


def test_a_number_past_two_to_the_53_is_read_as_json_parse_reads_it(tmp_path: Path) -> None:
    # CANON-5: a double past 2^53 is written in full digits, `123456789012345680000`, which
    # JSON.parse reads back as the double 123456789012345683968 and orjson as the digits
    path = tmp_path / "big.cassette.jsonl"
    _write(path, [1e20, 123456789012345678901.5])
    assert b"[100000000000000000000,123456789012345680000]" in path.read_bytes()
    delivered = read_replay_index(path).unwrap().interaction(1).unwrap()
    assert isinstance(delivered.outcome, ResultOutcome)
    numbers = delivered.outcome.result["structured"]
    loaded = _loaded_structured(path, 1)
    assert numbers == loaded == [10**20, 123456789012345683968]
    assert [type(number) for number in numbers] == [type(number) for number in loaded]  # type: ignore[union-attr]


def test_a_line_with_layout_slack_is_delivered_as_loaded(tmp_path: Path) -> None:
    # FMT-4: a line that is not canonical text is still the record its hash names
    path = tmp_path / "slack.cassette.jsonl"
    _write(path, {"kept": True})
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"kept":true', b'"kept" :  true', 1))
    index = read_replay_index(path).unwrap()
    loaded = read_cassette(path).unwrap().interactions[1]
    delivered = index.interaction(1).unwrap()
    assert interaction_line(delivered).unwrap() == interaction_line(loaded).unwrap()


def test_the_same_record_rewritten_with_a_duplicate_member_is_refused(tmp_path: Path) -> None:
    # FMT-5: after the pass, slack becomes a repeated member of the same value; the record
    # orjson reads is unchanged, yet the loader refuses the line, and so does delivery
    path = tmp_path / "duplicate.cassette.jsonl"
    _write(path, {"kept": True})
    slack = b'"kept":true' + b" " * len(b',"kept":true')
    path.write_bytes(path.read_bytes().replace(b'"kept":true', slack, 1))
    index = read_replay_index(path).unwrap()
    path.write_bytes(path.read_bytes().replace(slack, b'"kept":true,"kept":true', 1))
    problem = read_cassette(path)
    assert isinstance(problem, Failure)
    assert problem.failure().message == "line 3 contains a duplicate JSON object member"
    assert index.interaction(1) == problem
