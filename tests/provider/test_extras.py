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
