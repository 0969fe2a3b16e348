"""FMT-14 content blocks: validation over an explicit worklist, linear and never recursive.

Known block types are checked field by field; unknown types pass untouched (they survive
round trips). Nested `tool-result` content is queued, so 20,000-level chains cost no stack.
The check returns its first problem as a value, or None: on the per-line fast path a
valid array allocates nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format.problem import FormatProblem

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["check_content_blocks"]


def _block_path(path: str, depth: int, index: int) -> str:
    if depth == 0:
        return f"{path}[{index}]"
    return f"{path} nested content at depth {depth}, index {index}"


def _block_problem(path: str, depth: int, index: int, problem: str) -> FormatProblem:
    block_path = _block_path(path, depth, index)
    return FormatProblem(block_path + problem, path=block_path)


def check_content_blocks(value: object, path: str) -> FormatProblem | None:
    """FMT-14 over an explicit LIFO worklist of (blocks, depth): the first problem, or None."""
    if not isinstance(value, list):
        return FormatProblem(f"{path} must be an array", path=path)
    pending: list[tuple[list[JsonValue], int]] = [(value, 0)]
    while pending:
        blocks, depth = pending.pop()
        index = -1
        for block in blocks:
            index += 1
            if type(block) is not dict:
                return _block_problem(path, depth, index, " must be a typed content block")
            kind = block.get("type")
            if type(kind) is not str or not kind:
                return _block_problem(path, depth, index, " must be a typed content block")
            if kind == "text" or kind == "reasoning":  # noqa: PLR1714 - faster than a set here
                if type(block.get("text")) is not str:
                    return _block_problem(path, depth, index, ".text must be a string")
            elif kind == "tool-result":
                if type(block.get("toolCallId")) is not str:
                    return _block_problem(path, depth, index, ".toolCallId must be a string")
                content = block.get("content")
                if type(content) is not list:
                    return _block_problem(path, depth, index, ".content must be an array")
                if "isError" in block and type(block["isError"]) is not bool:
                    return _block_problem(
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
                            return _block_problem(path, depth, index, f".{field} must be a string")
            elif kind == "image":
                from cassette_format.rules.image_block import image_problem  # lazy: images only

                problem = image_problem(block, _block_path(path, depth, index))
                if problem is not None:
                    return problem
    return None
