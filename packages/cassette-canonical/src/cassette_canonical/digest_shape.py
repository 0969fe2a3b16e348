"""The shape of a digest string, ``sha256:`` and 64 lowercase hex digits (CANON-8)."""

from __future__ import annotations

import re
from typing import Final

_DIGEST_MATCH: Final = re.compile(r"sha256:[0-9a-f]{64}").fullmatch


def is_digest(s: object) -> bool:
    """Whether ``s`` is a lowercase ``sha256:`` digest string, the whole string (CANON-8)."""
    return type(s) is str and _DIGEST_MATCH(s) is not None
