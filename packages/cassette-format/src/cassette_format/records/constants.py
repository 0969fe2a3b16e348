"""The fixed identifiers of the dsh-subagent-cassette v1 format (FMT-9, FMT-10).

Kept apart from `records` so the verifier can check them without building record types.
"""

from __future__ import annotations

__all__ = [
    "CASSETTE_FORMAT",
    "CASSETTE_VERSION",
    "HEADER_KIND",
    "INTERACTION_KIND",
    "TARGET_DSH_SUBAGENT",
]

CASSETTE_FORMAT = "dsh-subagent-cassette"
CASSETTE_VERSION = 1
TARGET_DSH_SUBAGENT = "0.1.0-rc.7"
HEADER_KIND = "cassette/header"
INTERACTION_KIND = "cassette/interaction"
