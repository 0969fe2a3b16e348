"""Scripted openai-agents models for the adapter tests: canned responses, no network."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from agents.items import ModelResponse, TResponseOutputItem
from agents.models.interface import Model
from agents.usage import Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)


def text_message(text: str) -> ResponseOutputMessage:
    """An assistant message carrying one text part."""
    return ResponseOutputMessage(
        id="msg-scripted",
        content=[ResponseOutputText(text=text, type="output_text", annotations=[])],
        role="assistant",
        status="completed",
        type="message",
    )


def tool_calls(calls: Sequence[tuple[str, str]]) -> list[TResponseOutputItem]:
    """One response holding a function call per (tool name, input text), issued together."""
    return [
        ResponseFunctionToolCall(
            id=f"fc-{index}",
            call_id=f"call-{name}",
            name=name,
            arguments=json.dumps({"input": text}),
            type="function_call",
        )
        for index, (name, text) in enumerate(calls)
    ]


class ScriptedModel(Model):
    """Answers each request with the next scripted response, in call order, whoever asks."""

    def __init__(self, script: Sequence[list[TResponseOutputItem]]) -> None:
        self._script = list(script)
        self.requests = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """Hand out the next scripted response."""
        self.requests += 1
        return ModelResponse(output=self._script.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Streaming is not scripted."""
        raise NotImplementedError("ScriptedModel does not stream")


class EchoChildModel(Model):
    """A child's own model: it always gives that child's answer."""

    def __init__(self, answer: str) -> None:
        self._answer = answer
        self.requests = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        """Return this child's answer."""
        self.requests += 1
        return ModelResponse(output=[text_message(self._answer)], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Streaming is not scripted."""
        raise NotImplementedError("EchoChildModel does not stream")
