"""Session-log file names, generation selection and record/refresh naming (LLMREPLAY-2, -10)."""

from __future__ import annotations

import pytest
from cassette_topology.sessions import (
    SessionLogName,
    next_generation_names,
    parse_session_log_name,
    select_generations,
    select_session_log_paths,
    session_log_file_name,
    stale_role_names,
)


@pytest.mark.parametrize(
    ("name", "parsed"),
    [
        ("session.jsonl", SessionLogName(0, 0)),
        ("session.v2.jsonl", SessionLogName(0, 2)),
        ("session.v10.jsonl", SessionLogName(0, 10)),
        ("session.1.jsonl", SessionLogName(1, 0)),
        ("session.12.v3.jsonl", SessionLogName(12, 3)),
    ],
)
def test_canonical_names_parse_and_print_back(name: str, parsed: SessionLogName) -> None:
    # LLMREPLAY-2
    assert parse_session_log_name(name) == parsed
    assert parsed.file_name == name


@pytest.mark.parametrize(
    "name",
    [
        "session.v0.jsonl",  # generation 0 never carries a suffix
        "session.0.jsonl",  # ordinals start at 1
        "session.01.jsonl",
        "session.v02.jsonl",
        "session.V2.jsonl",  # lowercase only
        "session.1.v0.jsonl",
        "session.jsonl.bak",
        "Session.jsonl",
        "session.١.jsonl",  # a non-ASCII digit
        "session.v2.1.jsonl",  # generation before ordinal
        "other.jsonl",
    ],
)
def test_non_canonical_names_are_not_session_logs(name: str) -> None:
    # LLMREPLAY-2
    assert parse_session_log_name(name) is None


def test_generation_zero_has_no_suffix() -> None:
    # LLMREPLAY-2
    assert session_log_file_name(0, 0) == "session.jsonl"
    assert session_log_file_name(3, 0) == "session.3.jsonl"
    assert session_log_file_name(3, 7) == "session.3.v7.jsonl"


def test_v10_beats_v2_and_v9_numerically() -> None:
    # LLMREPLAY-2: numerically highest, not lexically (".v9" > ".v10" as text)
    names = ["session.v2.jsonl", "session.v10.jsonl", "session.v9.jsonl", "session.jsonl"]
    assert select_generations(names) == (SessionLogName(0, 10),)


def test_each_role_selects_its_own_highest_generation() -> None:
    # LLMREPLAY-2
    names = [
        "session.jsonl",
        "session.v1.jsonl",
        "session.1.v10.jsonl",
        "session.1.v2.jsonl",
        "session.2.jsonl",
        "notes.txt",
        "session.v0.jsonl",
    ]
    assert [n.file_name for n in select_generations(names)] == [
        "session.v1.jsonl",
        "session.1.v10.jsonl",
        "session.2.jsonl",
    ]


def test_missing_roles_are_simply_absent() -> None:
    # LLMREPLAY-2: a child role without a primary, or a gap in ordinals, is not invented
    assert [n.role for n in select_generations(["session.3.jsonl", "session.1.v4.jsonl"])] == [
        1,
        3,
    ]
    assert select_generations([]) == ()


def test_selection_is_per_directory_in_a_recursive_listing() -> None:
    # LLMREPLAY-9
    paths = [
        "a/session.jsonl",
        "a/session.v10.jsonl",
        "a/session.v2.jsonl",
        "a/nested/session.jsonl",
        "b/session.1.jsonl",
        "b/session.1.v3.jsonl",
        "b/readme.md",
    ]
    assert select_session_log_paths(paths) == (
        "a/session.v10.jsonl",
        "a/nested/session.jsonl",
        "b/session.1.v3.jsonl",
    )


def test_record_writes_the_next_generation_of_each_role() -> None:
    # LLMREPLAY-10: older generations are kept, the new one goes above the highest
    existing = ["session.jsonl", "session.v10.jsonl", "session.v2.jsonl", "session.1.jsonl"]
    assert next_generation_names(existing, 3) == (
        "session.v11.jsonl",
        "session.1.v1.jsonl",
        "session.2.jsonl",
    )
    assert next_generation_names([], 1) == ("session.jsonl",)


def test_roles_no_longer_produced_are_stale() -> None:
    # LLMREPLAY-10
    existing = ["session.jsonl", "session.1.jsonl", "session.2.v3.jsonl", "session.2.jsonl", "x"]
    assert stale_role_names(existing, 2) == ("session.2.jsonl", "session.2.v3.jsonl")
    assert stale_role_names(existing, 3) == ()
