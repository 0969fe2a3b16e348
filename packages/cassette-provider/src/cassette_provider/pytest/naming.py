"""Cassette file names for pytest node ids: injective, bounded, readable (issue 26).

A name is the readable slug of the test's id (its part after the module, `::` shown as `.`)
when that slug is *plain*: only lowercase letters, digits, `_` and `-` in non-empty segments,
at most `SLUG_MAX` characters and no Windows device name. A plain slug gives its id back
(`.` -> `::`), and no two plain slugs differ only by case, so plain names never collide, even on
a case-insensitive file system. Every other id gets its slug (cut to `SLUG_MAX`) followed by
`~` and `DIGEST_HEX` hex digits of SHA-256 over the exact id: `~` never occurs in a slug, so a
digested name never equals a plain one, and two digested names are equal only when the digests
of two distinct ids collide (a 2**-48 chance per pair). Module directories are named the same
way from the module's file stem.

Every name stays within `NAME_MAX` bytes together with the longest sibling suffix a writer,
lock or `rewrite` puts after it (`SIBLING_RESERVE`). Pure: imports only the standard library,
because the plugin loads it in every pytest run.
"""

from __future__ import annotations

import hashlib
import re
import shlex
from pathlib import Path
from typing import Final

__all__ = [
    "CASSETTE_SUFFIX",
    "DIGEST_HEX",
    "NAME_MAX",
    "SIBLING_RESERVE",
    "SLUG_MAX",
    "cassette_path",
    "id_in_module",
    "legacy_cassette_path",
    "legacy_safe_name",
    "rename_instruction",
    "safe_slug",
]

#: The cassette file name suffix the plugin gives every default cassette.
CASSETTE_SUFFIX: Final = ".cassette.jsonl"
#: The longest file name, in bytes, that Linux, macOS and Windows file systems accept (NAME_MAX).
NAME_MAX: Final = 255
#: Bytes kept free after a cassette's name for its siblings' suffixes: `.partial-<pid>-<token>`
#: and `.rewrite-<pid>-<token>` (28 each), `.writer.lock`, `.writer.flock`, `.seal`, and the
#: `.sessions` directory's own staging names, with room to spare for later ones.
SIBLING_RESERVE: Final = 64
#: Hex digits of the SHA-256 digest that makes a lossy or long slug unique.
DIGEST_HEX: Final = 12
_DIGEST_MARK: Final = "~"
#: The longest slug: the whole name plus `SIBLING_RESERVE` stays within `NAME_MAX`.
SLUG_MAX: Final = NAME_MAX - SIBLING_RESERVE - len(CASSETTE_SUFFIX) - len(_DIGEST_MARK) - DIGEST_HEX

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9._-]")
_PLAIN: Final = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
#: Names Windows reserves in any directory, with any extension.
_DEVICES: Final = frozenset(
    {"con", "prn", "aux", "nul"} | {f"{port}{n}" for port in ("com", "lpt") for n in range(10)}
)


def legacy_safe_name(text: str) -> str:
    """The old rendering: anything but letters, digits, `.`, `_` and `-` becomes `_` (lossy)."""
    return _UNSAFE.sub("_", text) or "_"


def id_in_module(nodeid: str) -> str:
    """The node id after its module part: `TestX::test_y[p]` of `tests/t.py::TestX::test_y[p]`."""
    return nodeid.split("::", 1)[1] if "::" in nodeid else nodeid


def _is_plain(slug: str, text: str) -> bool:
    """True when `slug` alone names `text` on every file system (see the module docstring)."""
    return (
        len(slug) <= SLUG_MAX
        and _PLAIN.fullmatch(slug) is not None
        and slug.replace(".", "::") == text
        and slug.split(".", 1)[0] not in _DEVICES
    )


def _digest(text: str) -> str:
    """`DIGEST_HEX` hex digits of SHA-256 over the exact text (lone surrogates kept)."""
    raw = text.encode("utf-8", "surrogatepass")
    return hashlib.sha256(raw).hexdigest()[:DIGEST_HEX]


def safe_slug(text: str) -> str:
    """A file-name-safe, injective, bounded name for one id (`::` read as `.`)."""
    slug = legacy_safe_name(text.replace("::", "."))
    if _is_plain(slug, text):
        return slug
    return f"{slug[:SLUG_MAX]}{_DIGEST_MARK}{_digest(text)}"


def cassette_path(test_file: Path, nodeid: str) -> Path:
    """`<test dir>/cassettes/<module>/<test name>.cassette.jsonl`, each part from `safe_slug`."""
    module = safe_slug(test_file.stem)
    return (
        test_file.parent
        / "cassettes"
        / module
        / f"{safe_slug(id_in_module(nodeid))}{CASSETTE_SUFFIX}"
    )


def legacy_cassette_path(test_file: Path, nodeid: str) -> Path | None:
    """Where cassette-provider 0.2 put this test's cassette; None where no file could be there.

    The 0.2 scheme could give several ids one name and could overflow `NAME_MAX`.
    """
    name = f"{legacy_safe_name(id_in_module(nodeid).replace('::', '.'))}{CASSETTE_SUFFIX}"
    module = legacy_safe_name(test_file.stem)
    if max(len(name), len(module)) > NAME_MAX:  # ASCII: characters are bytes
        return None
    return test_file.parent / "cassettes" / module / name


def rename_instruction(old: Path, new: Path, option: str) -> str:
    """What to do with a file named by the 0.2 scheme where this test's new name holds none."""
    return (
        f"this test's subagent cassette is now named {new.name!r} (unique per test id); "
        f"{old.name!r} beside it was named by cassette-provider 0.2's scheme, which could give "
        f"several tests one file. If it is this test's recording, rename it: "
        f"mv {shlex.quote(str(old))} {shlex.quote(str(new))} ; otherwise re-record it with "
        f"{option}=rewrite"
    )
