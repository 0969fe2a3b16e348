"""`python -m cassette_cli`: the same as the `cassette` console script."""

from cassette_cli.app import console_main

if __name__ == "__main__":  # spawned verify workers import this module as __mp_main__
    console_main()
