"""Writing, moving and removing the tail seal beside a cassette (issue 25; `read/tail_seal.py`).

A seal is replaced atomically with the cassette's own care (`safe_files`): a fresh random
temporary sibling created exclusively, fsynced, renamed over the seal, directory fsynced.
"""

from __future__ import annotations

import contextlib
import os
import stat

from cassette_format.read.tail_seal import TailSeal, seal_path
from cassette_format.write.safe_files import kept_mode, replace_atomically

__all__ = ["discard_sealed", "remove_seal", "replace_sealed", "write_seal"]


def write_seal(cassette: str, seal: TailSeal) -> None:
    """Replace the seal beside `cassette` atomically (fresh random temp, fsync, rename)."""
    replace_atomically(seal_path(cassette), seal.to_bytes(), purpose="seal")


def remove_seal(cassette: str | os.PathLike[str]) -> None:
    """Remove the seal beside `cassette`, if any (before its cassette is replaced)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(seal_path(cassette))


def replace_sealed(source: str | os.PathLike[str], destination: str | os.PathLike[str]) -> None:
    """Move a finished cassette and its seal over `destination`, keeping that file's mode.

    The destination's old seal goes first, so a crash part-way leaves either no seal or
    the right one, never a stale seal naming the new file's id. Raises OSError.
    """
    source, destination = os.fspath(source), os.fspath(destination)
    sealed = seal_path(source)
    os.chmod(source, kept_mode(destination, stat.S_IMODE(os.stat(source).st_mode)))
    remove_seal(destination)
    os.replace(source, destination)
    with contextlib.suppress(FileNotFoundError):
        os.replace(sealed, seal_path(destination))


def discard_sealed(cassette: str | os.PathLike[str]) -> None:
    """Remove a cassette that will not be kept, and its seal (missing files are fine)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(seal_path(cassette))
    with contextlib.suppress(FileNotFoundError):
        os.unlink(cassette)
