"""Real recordings for the drift, Markdown and HTML report tests (issue 25).

A root starts its children at once (so their timelines overlap); one child starts a nested
grandchild. Prompts and results carry a canary that no report may show; labels may be hostile.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)

CANARY = "CANARY-report-5150"
#: Labels that would break Markdown tables, code spans, HTML or a terminal if not escaped.
HOSTILE = (
    "pipe | cell",
    "tick ` code",
    "<script>alert(1)</script>",
    "line\nbreak",
    "**bold** [link](http://example.invalid) &amp;",
)


def _prompt(text: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": text}]


def _upstream(registry: ProviderRegistry, nested: str | None) -> FunctionProvider:
    async def run(request: StartRequest, child: SimpleAgent) -> object:
        await asyncio.sleep(0)  # let siblings start before any finishes
        if nested is not None and request.label == nested:
            inner = await registry.start(
                "cassette",
                StartRequest(prompt=_prompt(f"{CANARY} inner"), parent=child, label="inner"),
            )
            try:
                await inner.result
            finally:
                await inner.dispose()
        if request.label == "fails":
            raise RuntimeError(f"{CANARY} failure body")
        return {"output": [{"type": "text", "text": f"{CANARY} answer"}], "stopReason": "completed"}

    return FunctionProvider("spawn", run)


async def _record(path: Path, prompts: Mapping[str, str], storage: str, nested: str | None) -> None:
    registry = ProviderRegistry()
    registry.register(_upstream(registry, nested))
    config = RecordConfig(file=str(path), request_storage=storage)  # type: ignore[arg-type]
    root = SimpleAgent(session_id="root")
    async with install_cassette(registry, config):
        runs = [
            await registry.start(
                "cassette", StartRequest(prompt=_prompt(text), parent=root, label=label)
            )
            for label, text in prompts.items()
        ]
        for run in runs:
            try:
                await run.result
            except Exception:  # a recorded failure is part of the scenario
                pass
            finally:
                await run.dispose()


def record(
    path: Path,
    prompts: Mapping[str, str],
    *,
    storage: str = "metadata",
    nested: str | None = None,
) -> Path:
    """Record the root's children (label -> prompt text) concurrently into `path`."""
    asyncio.run(_record(path, prompts, storage, nested))
    return path
