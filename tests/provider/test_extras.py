"""A missing optional dependency names the extra to install (issue 15)."""

from __future__ import annotations

import sys

import pytest
from cassette_provider.extras import EXTRAS, MissingExtraError, require_extra


def test_an_installed_module_is_returned() -> None:
    assert require_extra("json", "a test") is sys.modules["json"]


@pytest.mark.parametrize(("module", "extra"), sorted(EXTRAS.items()))
def test_a_missing_extra_names_its_install_command(
    monkeypatch: pytest.MonkeyPatch, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # what an uninstalled module looks like
    with pytest.raises(MissingExtraError) as missing:
        require_extra(module, "cassette_provider.example")
    assert isinstance(missing.value, ImportError)
    assert missing.value.extra == extra
    assert f'pip install "cassette-provider[{extra}]"' in str(missing.value)
    assert "cassette_provider.example" in str(missing.value)


def test_a_broken_install_keeps_its_own_error() -> None:
    """Only an absent top-level module maps to an extra; a missing piece of one is not hidden."""
    with pytest.raises(ModuleNotFoundError) as missing:
        require_extra("json.nonexistent_submodule", "a test")
    assert not isinstance(missing.value, MissingExtraError)


def test_the_httpx_transports_name_their_extra() -> None:
    """Run in a fresh interpreter, so no earlier import of httpx hides the missing module."""
    import subprocess

    probe = (
        "import sys\n"
        "sys.modules['httpx'] = None\n"
        "from cassette_provider.extras import MissingExtraError\n"
        "try:\n"
        "    import cassette_provider.models.transport\n"
        "except MissingExtraError as error:\n"
        "    print(error.extra)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "httpx\n", done.stderr
