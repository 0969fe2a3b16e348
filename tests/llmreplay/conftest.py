"""Enable pytester for the model_sessions fixture tests in this directory."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Register pytester late, from this directory's conftest."""
    if not config.pluginmanager.has_plugin("pytester"):
        config.pluginmanager.import_plugin("pytester")
