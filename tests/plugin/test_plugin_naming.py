"""Cassette names are injective and bounded (issue 26): one file per node id, siblings fit.

The repro ids of the adversarial suite (`a/b`, `a_b`, `a::b`, `a.b`, `\\x00`, `_x00`, a 215- and
a 240-character id) each own a file; a hypothesis property draws ids and checks distinct ids give
distinct names (case-insensitively too) and that every name plus its longest sibling suffix
fits NAME_MAX.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from cassette_format.write.lock import FLOCK_SUFFIX
from cassette_format.write.partial import PARTIAL_MARK
from cassette_provider.pytest.model_fixture import SESSIONS_SUFFIX, sessions_directory
from cassette_provider.pytest.naming import (
    CASSETTE_SUFFIX,
    NAME_MAX,
    SIBLING_RESERVE,
    cassette_path,
    legacy_cassette_path,
    safe_slug,
)
from hypothesis import given
from hypothesis import strategies as st

REPRO_IDS = ("a/b", "a_b", "a::b", "a.b", "\\x00", "_x00", "\x00", "x" * 215, "y" * 240)
#: Every suffix a writer, lock, rewrite or session log puts after a cassette's full name, at its
#: longest (a 10-digit pid, an 8-hex token).
SIBLING_SUFFIXES = (
    f"{PARTIAL_MARK}{'9' * 10}-{'f' * 8}",
    f".rewrite-{'9' * 10}-{'f' * 8}",
    ".writer.lock",
    FLOCK_SUFFIX,
    ".seal",
    f"{SESSIONS_SUFFIX}.rewrite-{'9' * 10}-{'f' * 8}",
)
TEST_FILE = Path("/src/tests/test_flow.py")


def _name(identifier: str) -> str:
    return cassette_path(TEST_FILE, f"tests/test_flow.py::test_x[{identifier}]").name


def _fits(name: str) -> bool:
    """The name and each sibling suffix after it stay within NAME_MAX bytes."""
    size = len(name.encode())
    return all(size + len(suffix.encode()) <= NAME_MAX for suffix in SIBLING_SUFFIXES)


def test_every_sibling_suffix_fits_in_the_reserve() -> None:
    assert max(len(suffix) for suffix in SIBLING_SUFFIXES) <= SIBLING_RESERVE


def test_the_repro_ids_each_get_their_own_bounded_file() -> None:
    names = [_name(identifier) for identifier in REPRO_IDS]
    assert len(set(names)) == len(REPRO_IDS)
    assert len({name.casefold() for name in names}) == len(REPRO_IDS)
    for name in names:
        assert _fits(name), name
        assert name.startswith("test_x_")
        assert name.endswith(CASSETTE_SUFFIX)
    # the 0.2 scheme gave each pair one file, and the long ids names past NAME_MAX
    for one, other in (("a/b", "a_b"), ("a::b", "a.b"), ("\\x00", "_x00")):
        legacy = {legacy_cassette_path(TEST_FILE, f"m.py::test_x[{i}]") for i in (one, other)}
        assert len(legacy) == 1
    assert legacy_cassette_path(TEST_FILE, f"m.py::test_x[{'y' * 240}]") is None


def test_plain_ids_keep_their_readable_name_and_others_add_a_digest() -> None:
    assert safe_slug("test_fan_out") == "test_fan_out"
    assert safe_slug("test_a::test_b") == "test_a.test_b"
    assert safe_slug("test_x[fast]").startswith("test_x_fast_~")
    assert safe_slug("TestPlanner::test_x").startswith("TestPlanner.test_x~")  # case folds
    assert safe_slug("nul").startswith("nul~")  # a Windows device name
    assert safe_slug("").startswith("_~")


def test_the_sessions_directory_and_its_staging_names_fit_too() -> None:
    for identifier in REPRO_IDS:
        directory = sessions_directory(
            cassette_path(TEST_FILE, f"m.py::t[{identifier}]"), CASSETTE_SUFFIX
        )
        assert _fits(directory.name)


def test_a_240_character_id_creates_its_file_and_siblings(tmp_path: Path) -> None:
    path = cassette_path(tmp_path / "test_m.py", f"test_m.py::test_x[{'y' * 240}]")
    path.parent.mkdir(parents=True)
    for suffix in ("", *SIBLING_SUFFIXES):
        sibling = path.with_name(path.name + suffix)
        sibling.write_bytes(b"")  # an OSError (ENAMETOOLONG) here is the bug
        assert sibling.exists()


_IDS = st.one_of(
    st.text(max_size=300),
    st.text(alphabet="aA_-.:/[]~0x\\", max_size=300),
    st.lists(st.sampled_from(["a", "::", ".", "_", "/", "[", "]", "b"]), max_size=20).map("".join),
)


@given(st.lists(_IDS, min_size=2, max_size=8, unique=True), st.text(min_size=1, max_size=300))
def test_distinct_ids_give_distinct_bounded_names(ids: list[str], stem: str) -> None:
    test_file = Path("/t") / f"{stem.replace('/', '_').replace(os.sep, '_')}.py"
    paths = [cassette_path(test_file, f"m.py::{identifier}") for identifier in ids]
    assert len({str(path).casefold() for path in paths}) == len(ids)
    for path in paths:
        assert _fits(path.name)
        assert len(path.parent.name.encode()) <= NAME_MAX - SIBLING_RESERVE
        assert _fits(sessions_directory(path, CASSETTE_SUFFIX).name)


@pytest.mark.parametrize("identifier", ["a::b", "a", "a.b"])
def test_the_module_part_is_named_once(identifier: str) -> None:
    path = cassette_path(TEST_FILE, f"tests/test_flow.py::{identifier}")
    assert path.parent == TEST_FILE.parent / "cassettes" / "test_flow"


INNER = """
import pytest
from cassette_provider import FunctionProvider, SimpleAgent, StartRequest

IDS = {ids!r}


@pytest.fixture
def cassette_registry(cassette_registry, request):
    async def run_child(start, child):
        return {{"output": [{{"type": "text", "text": request.node.callspec.id}}],
                "stopReason": "completed"}}

    if request.config.getoption("subagent_cassette_mode") == "once":
        cassette_registry.register(FunctionProvider("spawn", run_child))
    return cassette_registry


@pytest.mark.parametrize("case", IDS, ids=IDS)
async def test_x(cassette_registry, subagent_cassette, case, request):
    request_ = StartRequest(prompt=[{{"type": "text", "text": "same"}}], parent=SimpleAgent())
    run = await cassette_registry.start("cassette", request_)
    try:
        result = await run.result
    finally:
        await run.dispose()
    assert result["output"][0]["text"] == request.node.callspec.id
"""


def test_parametrized_repro_ids_record_and_replay_their_own_cassettes(
    pytester: pytest.Pytester,
) -> None:
    """Under 0.2 these shared one file: `once` replayed another test's answer, `all` clobbered."""
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makepyfile(test_flow=INNER.format(ids=list(REPRO_IDS)))
    pytester.runpytest("-p", "no:cacheprovider", "--cassette-mode=once").assert_outcomes(
        passed=len(REPRO_IDS)
    )
    files = list((pytester.path / "cassettes" / "test_flow").glob(f"*{CASSETTE_SUFFIX}"))
    assert len(files) == len(REPRO_IDS)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=len(REPRO_IDS))


def test_a_cassette_under_its_old_name_is_refused_with_the_rename(
    pytester: pytest.Pytester,
) -> None:
    """A 0.2-named cassette is never read as another test's: the failure says how to rename."""
    pytester.makeini(
        "[pytest]\nasyncio_mode = auto\nasyncio_default_fixture_loop_scope = function\n"
    )
    pytester.makepyfile(test_flow=INNER.format(ids=["a/b"]))
    pytester.runpytest("-p", "no:cacheprovider", "--cassette-mode=once").assert_outcomes(passed=1)
    (new,) = (pytester.path / "cassettes" / "test_flow").glob(f"*{CASSETTE_SUFFIX}")
    old = legacy_cassette_path(pytester.path / "test_flow.py", "test_flow.py::test_x[a/b]")
    assert old is not None
    assert old != new
    new.rename(old)
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([f"*mv {shlex.quote(str(old))} {shlex.quote(str(new))} ;*"])
    old.rename(new)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
