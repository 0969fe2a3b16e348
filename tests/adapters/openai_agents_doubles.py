"""Scripted openai-agents models for the adapter tests: canned responses, no network."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
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


def user_text(items: str | Sequence[Any]) -> str:
    """The text of the last user message in a model's input."""
    if isinstance(items, str):
        return items
    for item in reversed(items):
        if isinstance(item, dict) and item.get("role") == "user":
            return str(item["content"])
    raise AssertionError("the model input holds no user message")


def tool_output(items: str | Sequence[Any]) -> str | None:
    """The output of the last function call in a model's input, if a tool has answered."""
    if isinstance(items, str):
        return None
    for item in reversed(items):
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            return str(item["output"])
    return None


class RelayModel(Model):
    """A child's own model: it calls one tool with a fixed input, then answers with its output."""

    def __init__(self, tool: str, tool_text: str, prefix: str) -> None:
        self._tool = tool
        self._tool_text = tool_text
        self._prefix = prefix
        self.requests = 0

    async def get_response(
        self, system_instructions: str | None, input: str | list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        """Ask the tool first; once it has answered, relay its output."""
        self.requests += 1
        answered = tool_output(input)
        if answered is None:
            output = tool_calls([(self._tool, self._tool_text)])
        else:
            output = [text_message(f"{self._prefix}: {answered}")]
        return ModelResponse(output=output, usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Streaming is not scripted."""
        raise NotImplementedError("RelayModel does not stream")


class GatedAnswerModel(Model):
    """A grandchild's model: waits at a gate with the prompt, then answers `answer(prompt)`."""

    def __init__(
        self, gate: Callable[[str], Awaitable[None]], answer: Callable[[str], str]
    ) -> None:
        self._gate = gate
        self._answer = answer
        self.requests = 0

    async def get_response(
        self, system_instructions: str | None, input: str | list[Any], *args: Any, **kwargs: Any
    ) -> ModelResponse:
        """Pass the gate, then answer the user's prompt."""
        self.requests += 1
        prompt = user_text(input)
        await self._gate(prompt)
        return ModelResponse(
            output=[text_message(self._answer(prompt))], usage=Usage(), response_id=None
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        """Streaming is not scripted."""
        raise NotImplementedError("GatedAnswerModel does not stream")
