"""The plugin's pure decisions: record mode resolution, cassette paths, record/replay plans."""

from __future__ import annotations

from pathlib import Path

import pytest
from cassette_provider.pytest.options import resolve_mode
from cassette_provider.pytest.planning import (
    CassettePlan,
    default_cassette_path,
    merge_settings,
    plan_cassette,
    rewrite_target,
    safe_name,
    split_options,
)
from cassette_provider.pytest.reports import diagnostic_text, mismatch_report


def test_command_line_wins_over_environment_over_ini_and_none_is_the_default() -> None:
    assert resolve_mode(None, None) == "none"
    assert resolve_mode(None, "once") == "once"
    assert resolve_mode("all", "once") == "all"
    assert resolve_mode(None, "once", "rewrite") == "rewrite"
    assert resolve_mode("new_episodes", "once", "rewrite") == "new_episodes"


def test_an_unknown_mode_is_a_usage_error_naming_the_accepted_ones() -> None:
    with pytest.raises(pytest.UsageError, match="none, once, new_episodes, all, rewrite"):
        resolve_mode(None, "record")


def test_default_path_sits_beside_the_test_under_cassettes_module_test() -> None:
    path = default_cassette_path(
        Path("/src/tests/test_flow.py"), "tests/test_flow.py::test_fan_out"
    )
    assert path == Path("/src/tests/cassettes/test_flow/test_fan_out.cassette.jsonl")


def test_class_and_parametrized_tests_get_distinct_safe_names() -> None:
    path = default_cassette_path(
        Path("/t/test_a.py"), "test_a.py::TestPlanner::test_x[fast/one two]"
    )
    assert path.name.startswith("TestPlanner.test_x_fast_one_two_~")  # lossy: a digest follows
    assert path.name.endswith(".cassette.jsonl")
    assert safe_name("a/b\\c:d*é").startswith("a_b_c_d__~")
    assert safe_name("").startswith("_~")


def test_none_mode_replays_an_existing_cassette_and_refuses_a_missing_one() -> None:
    path = Path("/t/cassettes/m/t.cassette.jsonl")
    assert plan_cassette("none", path, exists=True, options={}) == CassettePlan(
        "replay", path, None
    )
    with pytest.raises(pytest.fail.Exception, match="--subagent-cassette-mode=once"):
        plan_cassette("none", path, exists=False, options={})


def test_once_records_only_when_missing_and_all_always_truncates() -> None:
    path = Path("/t/c.cassette.jsonl")
    assert plan_cassette("once", path, exists=False, options={}).write_mode == "create"
    assert plan_cassette("once", path, exists=True, options={}).action == "replay"
    assert plan_cassette("all", path, exists=True, options={}).write_mode == "truncate"
    assert plan_cassette("all", path, exists=False, options={}).action == "record"


def test_a_header_only_cassette_is_not_recorded_once_re_records_it_none_names_the_command() -> None:
    path = Path("/t/c.cassette.jsonl")
    plan = plan_cassette("once", path, exists=True, empty=True, options={})
    assert (plan.action, plan.write_mode) == ("record", "truncate")
    appended = plan_cassette("new_episodes", path, exists=True, empty=True, options={})
    assert appended.write_mode == "append"
    with pytest.raises(pytest.fail.Exception) as refused:
        plan_cassette("none", path, exists=True, empty=True, options={}, nodeid="t.py::test_a")
    assert str(refused.value) == (
        f"subagent cassette {path} holds no recorded call (a header-only file, left by a "
        "recording that made no call); record it again with: "
        "pytest --subagent-cassette-mode=once t.py::test_a"
    )


def test_new_episodes_appends_to_an_existing_cassette_and_records_a_missing_one() -> None:
    path = Path("/t/c.cassette.jsonl")
    assert plan_cassette("new_episodes", path, exists=True, options={}) == CassettePlan(
        "new_episodes", path, "append"
    )
    assert plan_cassette("new_episodes", path, exists=False, options={}).write_mode == "create"


def test_rewrite_always_records_into_a_new_file_that_replaces_only_on_a_pass() -> None:
    path = Path("/t/c.cassette.jsonl")
    for exists in (True, False):
        plan = plan_cassette("rewrite", path, exists=exists, options={})
        assert (plan.action, plan.write_mode, plan.rewrite) == ("record", "create", True)
    target = rewrite_target(path)
    assert target.parent == path.parent
    assert target.name.startswith("c.cassette.jsonl.rewrite-")
    assert not target.name.endswith(".cassette.jsonl")  # never globbed as a cassette


def test_settings_merge_config_then_module_class_test_markers_nearest_wins_per_key() -> None:
    merged = merge_settings(
        {"request_storage": "full", "timing": "recorded", "path": "a.cassette.jsonl"},
        [
            ((), {"timing": "instant", "redact_secrets": False}),  # module pytestmark
            (("b.cassette.jsonl",), {}),  # class marker: a positional path
            ((), {"speed": 2.0}),  # the test's own marker
        ],
    )
    assert merged == {
        "request_storage": "full",
        "timing": "instant",
        "redact_secrets": False,
        "path": "b.cassette.jsonl",
        "speed": 2.0,
    }


def test_marker_options_split_by_config_and_unknown_ones_fail() -> None:
    record, replay = split_options(
        {"request_storage": "full", "timing": "recorded", "provider": "c"},
        frozenset({"request_storage", "provider"}),
        frozenset({"timing", "provider"}),
    )
    assert record == {"request_storage": "full", "provider": "c"}
    assert replay == {"timing": "recorded", "provider": "c"}
    with pytest.raises(pytest.fail.Exception, match="unknown option\\(s\\) spped"):
        split_options({"spped": 2}, frozenset(), frozenset({"speed"}))


class _Diagnostic:
    def as_document(self) -> dict[str, object]:
        return {"status": "mismatch", "reason": "request-changed"}


class _Mismatch(Exception):
    code = "CASSETTE_MISMATCH"
    diagnostic = _Diagnostic()


def test_a_mismatch_diagnostic_is_found_through_wrapping_exceptions() -> None:
    try:
        try:
            raise _Mismatch("no cassette interaction matches")
        except _Mismatch as inner:
            raise RuntimeError("tool failed") from inner
    except RuntimeError as outer:
        text = diagnostic_text(ExceptionGroup("gather", [ValueError("x"), outer]))
    assert text is not None
    assert '"reason": "request-changed"' in text
    assert diagnostic_text(ValueError("unrelated")) is None


def test_a_mismatch_report_shows_message_and_diagnostic_and_hides_the_traceback() -> None:
    outer = RuntimeError("tool alpha failed")
    outer.__cause__ = _Mismatch('no cassette interaction matches parent "root"')
    report = mismatch_report(outer)
    assert report is not None
    assert report.startswith("RuntimeError caused by a subagent cassette mismatch:")
    assert '_Mismatch: no cassette interaction matches parent "root"' in report
    assert "subagent cassette diagnostic:" in report
    assert mismatch_report(ValueError("unrelated")) is None
