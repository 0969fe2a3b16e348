"""Typed records of mappings FMT-9 / FMT-10 accepted, decoded by code derived from the declarations.

`records.declare.decoder` generates one function per record from its declared members:
each member read by its wire name and built into its kind (safe integers as ints, string
arrays as tuples, nested records by their own decoders, unions by their discriminator).
Payload objects and arrays the line's parse just built are adopted as frozen views
(`frozen_json`), without copying or walking. Only values the rules accepted reach a
decoder; one that would not fit its declaration is a Failure, never a half-built record.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.records.declare import decoder
from cassette_format.records.model import CassetteHeader, CassetteInteraction

if TYPE_CHECKING:
    from cassette_canonical import JsonValue

__all__ = ["decode_header", "decode_interaction"]

JsonObject = Mapping[str, "JsonValue"]

_UNEXPECTED = "cassette record does not have the shape its checks accepted"
_header = decoder(CassetteHeader)
_interaction = decoder(CassetteInteraction)


def _unexpected(part: str) -> Failure[FormatProblem]:
    return Failure(FormatProblem(f"{_UNEXPECTED} ({part})"))


def decode_header(value: JsonObject) -> Result[CassetteHeader, FormatProblem]:
    """The typed header of a mapping FMT-9 accepted."""
    try:
        header: CassetteHeader = _header(value)
    except (KeyError, TypeError, ValueError, AttributeError):
        return _unexpected("header")
    return Success(header)


def decode_interaction(value: JsonObject) -> Result[CassetteInteraction, FormatProblem]:
    """The typed interaction of a mapping FMT-10 rules 1-9 accepted."""
    try:
        interaction: CassetteInteraction = _interaction(value)
    except (KeyError, TypeError, ValueError, AttributeError):
        return _unexpected("interaction")
    return Success(interaction)
