"""Content-block validation (FMT-14) over an explicit worklist: linear, never recursive.

Known block types are checked field by field; unknown types pass untouched (they survive
round trips). Nested `tool-result` content is queued, so 20,000-level chains cost no stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from cassette_format._js import js_string
from cassette_format._reject import Reject
from cassette_format._rules import (
    as_object,
    require_non_empty_string,
    require_non_negative_integer,
    require_optional_string,
    require_positive_integer,
)

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["check_content_blocks"]

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})


def _check_image(block: Mapping[str, JsonValue], block_path: str) -> None:
    attachment = as_object(block.get("attachment"))
    if attachment is None:
        raise Reject(f"{block_path}.attachment must be an object", path=block_path)
    at = f"{block_path}.attachment"
    require_non_empty_string(attachment.get("attachmentId"), at, ".attachmentId")
    media_type = js_string(attachment.get("mediaType"), present="mediaType" in attachment)
    if media_type not in _IMAGE_TYPES:
        raise Reject(f"{at}.mediaType is unsupported", path=f"{at}.mediaType")
    require_non_negative_integer(attachment.get("bytes"), at, ".bytes")
    require_positive_integer(attachment.get("width"), at, ".width")
    require_positive_integer(attachment.get("height"), at, ".height")
    require_optional_string(attachment, "name", at)


def _block_path(path: str, depth: int, index: int) -> str:
    if depth == 0:
        return f"{path}[{index}]"
    return f"{path} nested content at depth {depth}, index {index}"


def _block_reject(path: str, depth: int, index: int, problem: str) -> Reject:
    block_path = _block_path(path, depth, index)
    return Reject(block_path + problem, path=block_path)


def check_content_blocks(value: object, path: str) -> None:
    """FMT-14 over an explicit LIFO worklist of (blocks, depth): linear, never recursive."""
    if not isinstance(value, list):
        raise Reject(f"{path} must be an array", path=path)
    pending: list[tuple[list[JsonValue], int]] = [(value, 0)]
    while pending:
        blocks, depth = pending.pop()
        index = -1
        for block in blocks:
            index += 1
            if type(block) is not dict:
                raise _block_reject(path, depth, index, " must be a typed content block")
            kind = block.get("type")
            if type(kind) is not str or not kind:
                raise _block_reject(path, depth, index, " must be a typed content block")
            if kind == "text" or kind == "reasoning":  # noqa: PLR1714 - faster than a set here
                if type(block.get("text")) is not str:
                    raise _block_reject(path, depth, index, ".text must be a string")
            elif kind == "tool-result":
                if type(block.get("toolCallId")) is not str:
                    raise _block_reject(path, depth, index, ".toolCallId must be a string")
                content = block.get("content")
                if type(content) is not list:
                    raise _block_reject(path, depth, index, ".content must be an array")
                if "isError" in block and type(block["isError"]) is not bool:
                    raise _block_reject(
                        path, depth, index, ".isError must be a boolean when present"
                    )
                pending.append((content, depth + 1))
            elif kind == "tool-call":
                if (
                    type(block.get("id")) is not str
                    or type(block.get("name")) is not str
                    or type(block.get("arguments")) is not str
                ):
                    for field in ("id", "name", "arguments"):
                        if type(block.get(field)) is not str:
                            raise _block_reject(path, depth, index, f".{field} must be a string")
            elif kind == "image":
                _check_image(block, _block_path(path, depth, index))
