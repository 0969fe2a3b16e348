"""Wrong marker, option and ini values: one clear line each, never the plugin's traceback.

Found by the hostile-input audit: an ini `subagent_block_network` that is no boolean failed
every test with pytest's `invalid truth value`, a traceback and no option name. The marker
table guards every marker value (a bad `record_mode` was fixed on main alongside).
"""

from __future__ import annotations

import pytest

#: Marker keyword values a test may get wrong, each refused with its own one-line message.
BAD_MARKERS = {
    "path_int": "path=5",
    "path_list": "path=['a']",
    "path_nul": "path='a\\x00b.cassette.jsonl'",
    "mode_int": "record_mode=3",
    "mode_unknown": "record_mode='sometimes'",
    "mode_empty": "record_mode=''",
    "block_text": "block_network='yes'",
    "speed_text": "speed='fast'",
    "speed_nan": "speed=float('nan')",
    "timing_int": "timing=5",
    "storage_none": "request_storage='both'",
    "redact_text": "redact_secrets='no'",
    "patterns_text": "redaction_patterns='abc'",
    "patterns_bad_regex": "redaction_patterns=['(']",
    "duplicate_int": "duplicate_policy=1",
    "provider_empty": "provider=''",
    "timeout_negative": "dispose_timeout=-1",
    "unknown_key": "spped=2",
}


def _project(pytester: pytest.Pytester) -> None:
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    tests = "\n".join(
        f"@pytest.mark.subagent_cassette({arguments})\ndef test_{name}():\n    pass\n"
        for name, arguments in BAD_MARKERS.items()
    )
    pytester.makepyfile(test_markers="import pytest\n\n" + tests)


def test_each_wrong_marker_value_fails_its_test_with_one_line(pytester: pytest.Pytester) -> None:
    _project(pytester)
    result = pytester.runpytest("-p", "no:cacheprovider", "--subagent-cassette-mode=once")
    result.assert_outcomes(errors=len(BAD_MARKERS))
    output = result.stdout.str()
    for name in BAD_MARKERS:
        result.stdout.fnmatch_lines([f"ERROR test_markers.py::test_{name} - Failed: *"])
    assert "Traceback" not in output
    assert "cassette_provider" not in output  # no frame of the plugin, no module path
    result.stdout.fnmatch_lines(["*subagent cassette mode must be one of none, once,*got 3*"])


@pytest.mark.parametrize("value", ["maybe", "2", "enabled"])
def test_a_block_network_ini_value_that_is_no_boolean_is_a_usage_error(
    pytester: pytest.Pytester, value: str
) -> None:
    pytester.makeini(f"[pytest]\nsubagent_block_network = {value}\n")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the subagent_block_network ini option must be true or false*"])
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
