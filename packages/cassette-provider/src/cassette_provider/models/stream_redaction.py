"""Redaction across a streamed response's chunks: a secret split over two events is caught.

A streamed model answer arrives as many small events (SSE `data:` JSON, or chunk objects), and
a credential in the answer text can straddle two of them (`"sk-proj-AB"` then `"CD…"`), where
no per-chunk pattern sees it. Strings at the same place in every chunk (the same member path,
including inside JSON held by an SSE event's `data` string) are joined in order, redacted as
one text, and cut back at their original boundaries: each `[REDACTED]` lands in the chunk
where the secret began, and the chunks after it lose the rest of the secret. Only places
whose pieces differ are joined (ids and model names repeat in every chunk and are left alone).
Everything here works on private copies the caller never sees.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from cassette_canonical import JsonValue, canonical_json, parse_json

__all__ = ["MARK", "redact_across", "resplit"]

#: What every redaction puts in place of a match (REDACT-3).
MARK: Final = "[REDACTED]"
_INSIDE_JSON: Final = "<json>"

Holder = dict[str, object] | list[object]
Path = tuple[object, ...]


@dataclass(slots=True)
class _Leaf:
    """One string of one chunk: where it sits and which embedded JSON text holds it."""

    holder: Holder
    slot: str | int
    text: str
    #: Index of the embedded JSON (in `_Walk.embedded`) this leaf is inside, or -1.
    owner: int


@dataclass(slots=True)
class _Embedded:
    """A string holding JSON: its parsed copy, where the string sits, and its own owner."""

    holder: Holder
    slot: str | int
    parsed: JsonValue
    owner: int
    changed: bool = False


@dataclass(slots=True)
class _Walk:
    """Every string leaf of every chunk by path, and every embedded JSON text met."""

    leaves: dict[Path, list[_Leaf]]
    embedded: list[_Embedded]


def _optional(value: object) -> object | None:
    """A Result's value widened, so `value_or(None)` type-checks."""
    return value


def _json_or_none(text: str) -> object | None:
    """The JSON a string holds, or None."""
    return parse_json(text).map(_optional).value_or(None)


#: A path under construction, newest step first: (the path above, this step), or None at a
#: chunk's root. Sharing the path above makes each step O(1) however deep the chunk is.
_Steps = tuple["_Steps", object] | None


def _path(steps: _Steps) -> Path:
    """The path the steps spell, root first (built only where a leaf needs it)."""
    reversed_path: list[object] = []
    while steps is not None:
        steps, step = steps
        reversed_path.append(step)
    reversed_path.reverse()
    return tuple(reversed_path)


def _walk(chunks: list[object]) -> _Walk:
    """Collect leaves by path (chunk order kept), iteratively, parsing embedded JSON.

    Linear in the chunks' size: a step is linked onto the path above it, and a path is
    spelled out only for a string leaf (a chunk nested 100,000 levels deep took a minute when
    every container copied its whole path).
    """
    walk = _Walk(leaves={}, embedded=[])
    for chunk in chunks:
        stack: list[tuple[object, _Steps, int]] = [(chunk, None, -1)]
        while stack:
            node, path, owner = stack.pop()
            slots: list[tuple[str | int, object]] = []
            if isinstance(node, dict):
                slots = list(node.items())
            elif isinstance(node, list):
                slots = list(enumerate(node))
            for slot, item in slots:
                assert isinstance(node, dict | list)
                here: _Steps = (path, slot)
                if isinstance(item, dict | list):
                    stack.append((item, here, owner))
                elif isinstance(item, str):
                    parsed = _json_or_none(item) if item[:1] in ("{", "[") else None
                    if isinstance(parsed, dict | list):
                        walk.embedded.append(_Embedded(node, slot, parsed, owner))
                        stack.append((parsed, (here, _INSIDE_JSON), len(walk.embedded) - 1))
                    else:
                        leaf = _Leaf(node, slot, item, owner)
                        walk.leaves.setdefault(_path(here), []).append(leaf)
    return walk


def _spread(text: str, start: int, bounds: list[int], out: list[list[str]]) -> None:
    """Give `text` (the original from `start` on, unchanged) to the pieces it spans."""
    position = start
    piece = _piece_at(bounds, position)
    while text:
        room = bounds[piece + 1] - position
        if room <= 0:
            piece += 1
            continue
        out[piece].append(text[:room])
        position += min(room, len(text))
        text = text[room:]


def _piece_at(bounds: list[int], position: int) -> int:
    """The index of the piece holding original position `position` (the last one at the end)."""
    return min(bisect.bisect_right(bounds, position) - 1, len(bounds) - 2)


def resplit(pieces: list[str], redacted: str) -> list[str]:
    """Cut `redacted` (the joined pieces with some spans replaced by MARK) at the pieces' ends.

    Text between marks is the original's, so it is handed out by original position; each mark
    goes to the piece where its span began, which is where the text after it resumes. When the
    resumption cannot be found the whole redacted text goes to the first piece: the pieces then
    lose their boundaries, never a redaction.
    """
    joined = "".join(pieces)
    bounds = [0]
    for piece in pieces:
        bounds.append(bounds[-1] + len(piece))
    out: list[list[str]] = [[] for _ in pieces]
    i = j = 0
    while True:
        mark = redacted.find(MARK, j)
        kept = redacted[j:] if mark < 0 else redacted[j:mark]
        if joined[i : i + len(kept)] != kept:
            return [redacted, *([""] * (len(pieces) - 1))]
        _spread(kept, i, bounds, out)
        i += len(kept)
        if mark < 0:
            return ["".join(parts) for parts in out]
        following_mark = redacted.find(MARK, mark + len(MARK))
        following = redacted[mark + len(MARK) : following_mark if following_mark >= 0 else None]
        if following_mark < 0:
            resume = len(joined) - len(following)
        elif following:
            resume = joined.find(following, i + 1)
        else:
            resume = i + 1
        if resume < i:
            return [redacted, *([""] * (len(pieces) - 1))]
        out[_piece_at(bounds, i)].append(MARK)
        i, j = resume, mark + len(MARK)


def redact_across(chunks: list[object], redact_text: Callable[[str], tuple[str, int]]) -> int:
    """Redact, in place, each path's pieces joined over the chunks; the number of matches."""
    walk = _walk(chunks)
    total = 0
    for leaves in walk.leaves.values():
        pieces = [leaf.text for leaf in leaves]
        if len(pieces) < 2 or len(set(pieces)) < 2:
            continue
        redacted, count = redact_text("".join(pieces))
        if not count:
            continue
        total += count
        for leaf, text in zip(leaves, resplit(pieces, redacted), strict=True):
            if text != leaf.text:
                leaf.holder[leaf.slot] = text  # type: ignore[index]
                if leaf.owner >= 0:
                    walk.embedded[leaf.owner].changed = True
    for embedded in reversed(walk.embedded):  # innermost first: an outer text holds the inner
        if not embedded.changed:
            continue
        rewritten = canonical_json(embedded.parsed).map(_optional).value_or(None)
        if isinstance(rewritten, str):
            embedded.holder[embedded.slot] = rewritten  # type: ignore[index]
            if embedded.owner >= 0:
                walk.embedded[embedded.owner].changed = True
    return total
