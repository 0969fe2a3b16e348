"""An adapter whose framework is not installed says which extra to install (issue 15)."""

from __future__ import annotations

import sys

import pytest
from cassette_provider import ProviderRegistry, SimpleAgent
from cassette_provider.adapters.openai_agents import cassette_tool, openai_agents_provider
from cassette_provider.adapters.pydantic_ai import pydantic_ai_provider
from cassette_provider.extras import MissingExtraError


def test_openai_agents_provider_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agents", None)  # what an uninstalled package looks like
    with pytest.raises(MissingExtraError, match=r"cassette-provider\[openai-agents\]"):
        openai_agents_provider({})


def test_cassette_tool_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "agents", None)
    with pytest.raises(MissingExtraError, match=r"cassette-provider\[openai-agents\]"):
        cassette_tool(object(), registry=ProviderRegistry(), parent=SimpleAgent())


def test_pydantic_ai_provider_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic_core", None)
    with pytest.raises(MissingExtraError, match=r"cassette-provider\[pydantic-ai\]"):
        pydantic_ai_provider({})
