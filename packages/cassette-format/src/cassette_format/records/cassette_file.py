"""A parsed, fully verified cassette: its header and interactions in file order."""

from __future__ import annotations

from dataclasses import dataclass

from cassette_format.records.model import CassetteHeader, CassetteInteraction

__all__ = ["CassetteFile"]


@dataclass(frozen=True, slots=True)
class CassetteFile:
    """Header plus interactions in physical (completion) order; `source` is the absolute path."""

    header: CassetteHeader
    interactions: tuple[CassetteInteraction, ...]
    source: str | None = None
