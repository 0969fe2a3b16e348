"""`python -m cassette_cli`: the same as the `cassette` console script."""

from cassette_cli.app import console_main

console_main()
