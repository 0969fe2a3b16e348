"""The private signal a check raises inside one verification step; never escapes the package."""

from __future__ import annotations

__all__ = ["Reject"]


class Reject(Exception):
    """Stops a check sequence at its first failure, in the reference's order.

    Checks run as straight-line code (one `if` per rule, the first failure wins) and the
    public functions turn this into `Failure(CassetteFormatError(...))`, so no caller ever
    sees it.
    """

    def __init__(self, message: str, *, line: int | None = None, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.path = path
