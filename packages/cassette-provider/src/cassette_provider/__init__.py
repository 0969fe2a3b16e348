"""cassette-provider: see README.md; filled in by its issue."""

__all__: list[str] = []
