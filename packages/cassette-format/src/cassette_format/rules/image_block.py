"""FMT-14's image block: its attachment's rules in the reference's order, as a Result chain."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from returns.result import Result

from cassette_format.problem import FormatProblem
from cassette_format.rules.leaf import (
    PASSED,
    Checked,
    an_object,
    fails,
    non_empty_string,
    non_negative_integer,
    optional_string,
    positive_integer,
)
from cassette_format.text.js import js_string

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["image_problem"]

_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})


def _check_image(block: Mapping[str, JsonValue], block_path: str) -> Checked:
    at = f"{block_path}.attachment"
    return Result.do(
        None
        for attachment in an_object(block.get("attachment"), f"{at} must be an object", block_path)
        for _ in non_empty_string(attachment.get("attachmentId"), at, ".attachmentId")
        for _ in _media_type(attachment, at)
        for _ in non_negative_integer(attachment.get("bytes"), at, ".bytes")
        for _ in positive_integer(attachment.get("width"), at, ".width")
        for _ in positive_integer(attachment.get("height"), at, ".height")
        for _ in optional_string(attachment, "name", at)
    )


def _media_type(attachment: Mapping[str, JsonValue], at: str) -> Checked:
    media_type = js_string(attachment.get("mediaType"), present="mediaType" in attachment)
    if media_type in _IMAGE_TYPES:
        return PASSED
    return fails(f"{at}.mediaType is unsupported", f"{at}.mediaType")


def image_problem(block: Mapping[str, JsonValue], block_path: str) -> FormatProblem | None:
    """The first problem of an image block at `block_path`, or None."""
    return _check_image(block, block_path).swap().value_or(None)
