"""The suite's partial-file guard can fail: at a test's end and at the session's end (issue 27).

An inner project installs the same two fixtures tests/conftest.py installs (support is on the
path of an in-process run) and plants a partial recording where a user's project would get
one: during a test, and after its test ended (a module fixture's teardown, as a writer that
outlived its test would).
"""

from __future__ import annotations

import pytest

CONFTEST = """
from support.partial_guard import no_partial_left, no_partial_left_at_the_end

pytest_plugins = ["pytester"]
"""

PLANTS = """
import pytest

PROJECTS = []


@pytest.fixture(scope="module")
def late_writer():
    yield
    for project in PROJECTS:  # after every test of the module ended
        (project / "late.cassette.jsonl.partial-1-feedbeef").write_bytes(b"")


def test_leaves_one(pytester):
    (pytester.path / "cassettes").mkdir()
    (pytester.path / "cassettes" / "t.cassette.jsonl.partial-1-0badcafe").write_bytes(b"")


def test_clean_then_written_late(pytester, late_writer):
    PROJECTS.append(pytester.path)


def test_without_a_project(tmp_path):
    (tmp_path / "interrupted.cassette.jsonl.partial-1-00000000").write_bytes(b"")
"""


def test_the_guard_names_the_test_and_the_late_writer(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_plants=PLANTS)
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:xdist", "-W", "ignore::pytest.PytestDeprecationWarning"
    )
    # The first test errors at its end; the late write errors at the session's end, on the
    # last test; a test without a user's project keeps its interrupted writer's file.
    result.assert_outcomes(passed=3, errors=2)
    output = result.stdout.str()
    assert (
        "AssertionError: test_plants.py::test_leaves_one left partial or temporary recordings: "
        "['cassettes/t.cassette.jsonl.partial-1-0badcafe']"
    ) in output
    assert (
        "AssertionError: partial or temporary recordings left in user projects: "
        "{'test_plants.py::test_clean_then_written_late': "
        "['late.cassette.jsonl.partial-1-feedbeef']}"
    ) in output  # the first test's file is reported once, by its own test
