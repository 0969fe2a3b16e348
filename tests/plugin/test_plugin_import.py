"""The plugin costs pytest runs that never use a cassette almost nothing (issue 14).

pytest loads the `cassette` entry point in every run on a machine with cassette-provider
installed. Until a cassette fixture is requested, only the plugin module, its eager modules
(standard library and pytest only: `options`, the names and flags; `summary`, the run's tally;
`unused`, the unused-cassette tracker, issue 25; `naming`, the file names) and its package's
lazy `__init__` (with cassette_format's, which holds the lazy-export helper both use) may be
imported: no format, topology, canonical or provider stack.
"""

from __future__ import annotations

import pytest

_PLUGIN_ONLY = {
    "cassette_format",
    "cassette_format.lazy_exports",
    "cassette_provider",
    "cassette_provider.pytest",
    "cassette_provider.pytest.naming",  # the plugin's own file names: standard library only
    "cassette_provider.pytest.options",
    "cassette_provider.pytest.plugin",
    "cassette_provider.pytest.summary",
    "cassette_provider.pytest.unused",
}

_PROBE = """
import sys

def _loaded():
    return sorted(name for name in sys.modules if name.startswith("cassette_"))

def test_nothing_of_the_stack_is_loaded():
    print("\\nLOADED", ",".join(_loaded()))

def test_a_fixture_loads_the_stack(cassette_registry):
    print("\\nAFTER", ",".join(_loaded()))
"""


def _names(output: list[str], tag: str) -> set[str]:
    (line,) = [text for text in output if f"{tag} " in text]
    return {name for name in line.split(f"{tag} ", 1)[1].split(",") if name}


def test_plugin_import_loads_no_cassette_stack(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_probe=_PROBE)
    result = pytester.runpytest_subprocess("-s", "-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(passed=2)
    assert _names(result.outlines, "LOADED") == _PLUGIN_ONLY
    after = _names(result.outlines, "AFTER")
    assert "cassette_provider.contract.registry" in after  # the probe does see what a fixture loads
    assert after > _PLUGIN_ONLY
