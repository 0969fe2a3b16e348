"""The inner project's conftest shared by the refresh, unused and threaded suites (issues 25, 27).

It registers the upstream (answering `live <label>`) only when CASSETTE_TEST_UPSTREAM=1, so a
run without it proves every answer came from a cassette.
"""

from __future__ import annotations

UPSTREAM_CONFTEST = """
import os

import pytest
from cassette_provider import FunctionProvider, ProviderRegistry, SimpleAgent, StartRequest


async def run_child(request, child):
    text = "live " + request.label
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


@pytest.fixture
def cassette_registry():
    registry = ProviderRegistry()
    if os.environ.get("CASSETTE_TEST_UPSTREAM") == "1":
        registry.register(FunctionProvider("spawn", run_child))
    return registry
"""
