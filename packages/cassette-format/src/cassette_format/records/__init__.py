"""The on-disk records of dsh-subagent-cassette v1 (FMT-9..FMT-14): each declared once.

The package's face serves every name of `records.model` (its `__all__`) on first use, so
`from cassette_format.records import CassetteHeader` names the same class everywhere while
the streaming verifier, which needs only `records.constants`, never builds the record types.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from cassette_format.records.model import *  # noqa: F403  (every name of model.__all__)

_attribute, _names = lazy_exports(__name__, {}, whole=("cassette_format.records.model",))

if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt import is an error there
    __getattr__, __dir__ = _attribute, _names
