"""The C one-pass check (msgspec Structs from the declarations) changes no verdict (FMT-10, FMT-14).

Its content blocks accept only what FMT-14's ordered check accepts; a chain too deep for it
is refused, not crashed on; and verifying every interop cassette with it in front gives the
same summary or the same error as the Python checks alone.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import msgspec
import pytest
from cassette_format import verify_file
from cassette_format.read import chain
from cassette_format.read.verify import verify_stream
from cassette_format.records.model import CassetteHeader
from cassette_format.rules import struct_fits
from cassette_format.rules.block_structs import Block
from cassette_format.rules.content_blocks import check_content_blocks
from cassette_format.rules.fast import header_fits
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success
from support.paths import INTEROP

from format.builders import cassette_bytes, make_body

_CASSETTES = sorted((INTEROP / "cassettes").glob("*.cassette.jsonl"))

_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["", "x", "call-1", "text"]),
)
_TYPES = st.sampled_from(["text", "reasoning", "tool-call", "tool-result", "image", "", "odd", 5])
_MEMBERS = st.sampled_from(["text", "id", "name", "arguments", "toolCallId", "isError", "extra"])


def _block(content: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A block-like object: a type, some of the known members, maybe nested content."""
    return st.builds(
        lambda kind, members, nested: (
            {**({} if kind is None else {"type": kind}), **members}
            | ({} if nested is None else {"content": nested})
        ),
        st.one_of(st.none(), _TYPES),
        st.dictionaries(_MEMBERS, _LEAVES, max_size=4),
        st.one_of(st.none(), content),
    )


_BLOCK_LISTS = st.recursive(
    st.lists(_LEAVES, max_size=2),
    lambda inner: st.lists(st.one_of(_block(inner), _LEAVES), max_size=4),
    max_leaves=12,
)


def _struct_accepts(blocks: object) -> bool:
    try:
        msgspec.convert(blocks, list[Block])
    except (msgspec.ValidationError, RecursionError):
        return False
    return True


@given(_BLOCK_LISTS)
def test_struct_blocks_accept_only_what_fmt14_accepts(blocks: Any) -> None:  # FMT-14
    if _struct_accepts(blocks):
        assert check_content_blocks(blocks, "output") is None


@pytest.mark.parametrize(
    "blocks",
    [
        [{"type": "text", "text": "a", "extra": [1]}],
        [{"type": "tool-call", "id": "c", "name": "n", "arguments": "{}"}],
        [{"type": "tool-result", "toolCallId": "c", "content": [], "isError": False}],
        [
            {
                "type": "tool-result",
                "toolCallId": "c",
                "content": [{"type": "reasoning", "text": ""}],
            }
        ],
    ],
)
def test_struct_blocks_accept_valid_known_blocks(blocks: Any) -> None:  # FMT-14
    assert _struct_accepts(blocks)
    assert check_content_blocks(blocks, "output") is None


@pytest.mark.parametrize(
    "blocks",
    [
        [{"type": "text", "text": 1}],
        [{"type": "text"}],
        [{"type": "tool-result", "toolCallId": "c", "content": [], "isError": None}],
        [{"type": "tool-result", "toolCallId": "c", "content": [{"type": "text", "text": None}]}],
        [{"type": "tool-call", "id": "c", "name": "n"}],
        [{"type": ""}],
        [{"text": "untyped"}],
        ["not a block"],
    ],
)
def test_struct_blocks_refuse_what_fmt14_refuses(blocks: Any) -> None:  # FMT-14
    assert not _struct_accepts(blocks)
    assert check_content_blocks(blocks, "output") is not None


def test_unknown_and_image_blocks_are_left_to_the_python_check() -> None:  # FMT-14
    unknown = [{"type": "audio", "anything": 1}]
    assert not _struct_accepts(unknown)
    assert check_content_blocks(unknown, "output") is None


def test_a_chain_deeper_than_the_recursion_limit_is_refused_not_crashed() -> None:  # FMT-14
    blocks: list[Any] = [{"type": "text", "text": "leaf"}]
    for depth in range(5000):
        blocks = [{"type": "tool-result", "toolCallId": f"c{depth}", "content": blocks}]
    assert not _struct_accepts(blocks)
    assert check_content_blocks(blocks, "output") is None


def test_the_header_struct_check_agrees_with_the_python_one() -> None:  # FMT-9
    fits = struct_fits.struct_fits(CassetteHeader)
    headers = []
    for path in _CASSETTES:
        lines = path.read_bytes().splitlines()
        if lines:
            try:
                headers.append(msgspec.json.decode(lines[0]))
            except msgspec.DecodeError:
                continue
    assert headers
    for header in headers:
        assert fits(header) == header_fits(header)
        spoiled = {**header, "version": True} if isinstance(header, dict) else header
        assert not fits(spoiled)


def _verdict(data: bytes) -> object:
    match verify_stream(io.BytesIO(data)):
        case Success(summary):
            return summary
        case Failure(problem):
            return (problem.message, problem.line, problem.path)
    raise AssertionError("a Result is a Success or a Failure")  # pragma: no cover


def test_verify_gives_the_same_verdicts_with_the_struct_check_in_front(
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # FMT-10, FMT-21
    data = [path.read_bytes() for path in _CASSETTES]
    monkeypatch.setattr(chain, "ACCELERATE_AFTER", 10**9)
    python_only = [_verdict(item) for item in data]

    calls = {"accepted": 0}

    def counted(value: object, previous_hash: str) -> bool:
        accepted = struct_fits.interaction_struct_fits(value, previous_hash)
        calls["accepted"] += accepted
        return accepted

    monkeypatch.setattr(chain, "ACCELERATE_AFTER", 1)
    monkeypatch.setattr(chain, "_accelerated", lambda: counted)
    assert [_verdict(item) for item in data] == python_only
    assert calls["accepted"] > 100  # the struct check really decided most lines


def test_a_file_long_enough_uses_the_struct_check_from_its_first_interaction(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:  # FMT-10
    bodies = [make_body(sequence, request_tag=f"t{sequence}") for sequence in range(1, 9)]
    path = tmp_path / "eight.cassette.jsonl"
    path.write_bytes(cassette_bytes(bodies))
    asked = {"count": 0}

    def counted(value: object, previous_hash: str) -> bool:
        asked["count"] += 1
        return struct_fits.interaction_struct_fits(value, previous_hash)

    monkeypatch.setattr(chain, "_accelerated", lambda: counted)
    monkeypatch.setattr(chain, "ACCELERATE_AFTER", 4)  # 8 lines like the first: C at once
    assert verify_file(path)["interactions"] == 8
    assert asked["count"] == 8
    monkeypatch.setattr(chain, "ACCELERATE_AFTER", 100)  # a short file: Python throughout
    assert verify_file(path)["interactions"] == 8
    assert asked["count"] == 8
