"""The tail seal: a sidecar that lets a reader notice a removed suffix (our extension, issue 25).

The hash chain proves every line links to the one before it, but not that lines were not
cut off the end (the reference's documented gap). A clean close of our writer therefore
writes `<cassette>.seal` beside the (resolved) cassette: one canonical JSON line naming
the cassette id, the number of interactions and the hash of the last record. A reader
that finds a seal for the same cassette id requires the file to still hold that record at
that position (more records after it are fine: an append extends the sealed chain), else
it names the seal and how many interactions are missing. A missing seal is no error
(reference-written cassettes have none); a seal of another cassette id is stale (the file
was re-recorded by a writer that seals nothing) and ignored. The cassette format itself is
unchanged. Writing, moving and removing seals is `write/tail_seal.py`.
"""

from __future__ import annotations

import itertools
import os
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import orjson
from cassette_canonical import is_digest

from cassette_format.problem import FormatProblem
from cassette_format.read.open import open_regular
from cassette_format.read.run import run_lines
from cassette_format.records.model import CASSETTE_ID

if TYPE_CHECKING:
    from cassette_format.read.chain import ChainState
    from cassette_format.read.lines import LineOrProblem

__all__ = [
    "SEAL_KIND",
    "SEAL_SUFFIX",
    "SealCheck",
    "TailSeal",
    "read_seal",
    "run_sealed",
    "seal_path",
]

SEAL_SUFFIX: Final = ".seal"
SEAL_KIND: Final = "cassette-tail-seal/1"
#: A seal is about 200 bytes; anything longer is not one.
_SEAL_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class TailSeal:
    """What a clean close saw last: the cassette id, interaction count and last record hash."""

    cassette_id: str
    count: int
    last_hash: str

    def to_bytes(self) -> bytes:
        """The seal file's bytes: canonical JSON and `\\n`."""
        from cassette_canonical import canonical_json  # lazy: `cassette verify` only reads

        document = {
            CASSETTE_ID: self.cassette_id,
            "count": self.count,
            "kind": SEAL_KIND,
            "lastHash": self.last_hash,
        }
        return canonical_json(document).unwrap().encode("utf-8") + b"\n"


def seal_path(cassette: str | os.PathLike[str]) -> str:
    """`<resolved cassette>.seal`: beside the real file, so a symlinked cassette shares it."""
    return os.path.realpath(os.path.abspath(os.fspath(cassette))) + SEAL_SUFFIX


def _parsed(data: bytes) -> TailSeal | None:
    """The seal these bytes hold, or None when they are not exactly one."""
    if len(data) > _SEAL_LIMIT:
        return None
    try:
        document = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(document, dict) or document.get("kind") != SEAL_KIND:
        return None
    cassette_id, count, last = (
        document.get(CASSETTE_ID),
        document.get("count"),
        document.get("lastHash"),
    )
    if not (isinstance(cassette_id, str) and cassette_id and is_digest(last)):
        return None
    if type(count) is not int or count < 0:
        return None
    return TailSeal(cassette_id, count, str(last))


def _stale_seal_step(path: str) -> str:
    """The next step when the cassette was restored on purpose and only its seal is out of date."""
    return (
        "; if you restored or re-recorded this cassette on purpose (git checkout, a merge), "
        f"its seal is stale: rm {shlex.quote(path)} (commit a cassette together with its .seal)"
    )


def read_seal(cassette: str | os.PathLike[str]) -> TailSeal | FormatProblem | None:
    """The seal beside `cassette`; None when there is none; an error when it is no seal."""
    path = seal_path(cassette)
    try:
        with open_regular(path) as source:
            data = source.read(_SEAL_LIMIT + 1)
    except FileNotFoundError:
        return None
    except OSError as error:
        return FormatProblem(f'cannot read cassette seal "{path}"', cause=error)
    seal = _parsed(data)
    if seal is None:
        return FormatProblem(
            f'cassette seal "{path}" is not a valid tail seal; '
            f"remove it to verify without one: rm {shlex.quote(path)}"
        )
    return seal


@dataclass(frozen=True, slots=True)
class SealCheck:
    """A seal and what the chain held at the seal's position (count seen, hash there)."""

    path: str
    seal: TailSeal
    seen: int
    hash_there: str

    def problem(self, cassette_id: str) -> FormatProblem | None:
        """Why the verified file breaks its seal, or None (also for another cassette's seal)."""
        seal = self.seal
        if seal.cassette_id != cassette_id:
            return None  # stale: the cassette was re-recorded by a writer that seals nothing
        if self.seen < seal.count:
            missing = seal.count - self.seen
            return FormatProblem(
                f'cassette is truncated: its seal "{self.path}" records {seal.count} '
                f"interactions, the file holds {self.seen} ({missing} missing at the end)"
                + _stale_seal_step(self.path)
            )
        if self.hash_there != seal.last_hash:
            return FormatProblem(
                f'cassette does not match its seal "{self.path}": interaction {seal.count} '
                "is not the one sealed (the file was rewritten after it was sealed)"
                + _stale_seal_step(self.path)
            )
        return None


def run_sealed(
    state: ChainState, lines: Iterator[LineOrProblem], cassette: str
) -> FormatProblem | None:
    """`run_lines` plus the seal check when a seal lies beside `cassette` (read edges only)."""
    found = read_seal(cassette)
    if found is None:
        return run_lines(state, lines)
    if isinstance(found, FormatProblem):
        return run_lines(state, lines) or found
    # Header plus `count` interactions, then the hash the chain reached there.
    numbers = [0]  # the last non-blank line number fed (the header is line 1)

    def counted(items: Iterator[LineOrProblem]) -> Iterator[LineOrProblem]:
        for item in items:
            if not isinstance(item, FormatProblem):
                numbers[0] = item[0]
            yield item

    problem = run_lines(state, counted(itertools.islice(lines, found.count + 1)), finish=False)
    if problem is not None:
        return problem
    seen = max(0, numbers[0] - 1)
    check = SealCheck(seal_path(cassette), found, seen, state.links.previous_hash)
    problem = run_lines(state, lines)
    if problem is not None:
        return problem
    header = state.header_record
    return None if header is None else check.problem(str(header[CASSETTE_ID]))
