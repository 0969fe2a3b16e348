"""NORM-10: volatile tool-call ids renumbered `call-<n>` by their first appearance.

Ids minted per run (by the model or the SDK) differ between two runs of the same calls; the
n-th distinct id met in a walk becomes `call-<n>`, so equal contents number equally. Parent
context normalization (provider) and session binding (`sessions.volatile`) both number so.
"""

from __future__ import annotations

__all__ = ["stable_call_id"]


def stable_call_id(raw: str, seen: dict[str, str]) -> str:
    """`call-<n>` for `raw`: its number in `seen` (one walk's ids), or the next one, noted."""
    known = seen.get(raw)
    if known is None:
        known = f"call-{len(seen) + 1}"
        seen[raw] = known
    return known
