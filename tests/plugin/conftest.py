"""Enable pytester for the plugin's acceptance tests (only this directory needs it)."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register pytester late, from this directory's conftest."""
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")
