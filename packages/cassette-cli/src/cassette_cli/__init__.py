"""cassette-cli: the `cassette` command (verify, inspect, diff, demo), drop-in for the reference."""

from cassette_cli.app import console_main, main

__all__ = ["console_main", "main"]
