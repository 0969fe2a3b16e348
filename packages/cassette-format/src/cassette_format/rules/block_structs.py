"""FMT-14's known content blocks as msgspec Structs: the C accelerator of `check_content_blocks`.

It only ever says yes: a list converts to `list[Block]` when every block, nested
`tool-result` content included, is a text, reasoning, tool-call or tool-result block whose
members `check_content_blocks` accepts (other members are ignored, as it ignores them).
An image block, a type it does not know, a wrong member or a chain deeper than the
interpreter's recursion limit is refused, and the Python check decides.
"""

from __future__ import annotations

from typing import TypeAlias

from msgspec import UNSET, Struct, UnsetType

__all__ = ["Block"]


class TextBlock(Struct, tag_field="type", tag="text", gc=False):
    """`{"type": "text", "text": string}`."""

    text: str


class ReasoningBlock(Struct, tag_field="type", tag="reasoning", gc=False):
    """`{"type": "reasoning", "text": string}`."""

    text: str


class ToolCallBlock(Struct, tag_field="type", tag="tool-call", gc=False):
    """`{"type": "tool-call", "id", "name", "arguments": strings}`."""

    id: str
    name: str
    arguments: str


class ToolResultBlock(Struct, tag_field="type", tag="tool-result", gc=False):
    """`{"type": "tool-result", "toolCallId": string, "content": blocks, "isError"?: boolean}`."""

    toolCallId: str
    content: list[Block]
    isError: bool | UnsetType = UNSET


Block: TypeAlias = TextBlock | ReasoningBlock | ToolCallBlock | ToolResultBlock
