"""cassette_format's public names: one surface for type checkers and at run time (issue 15)."""

from __future__ import annotations

import subprocess
import sys

import cassette_format
from support.public_surface import assert_surface_is_served, assert_unknown_name_is_refused


def test_the_typed_surface_is_what_the_package_serves() -> None:
    assert_surface_is_served(cassette_format)


def test_every_name_of_the_records_module_is_public() -> None:
    """The record types' __all__ is not repeated in the package: the package exports it whole."""
    from cassette_format import records
    from cassette_format.records import model

    assert set(model.__all__) == set(dir(records))
    assert set(model.__all__) <= set(dir(cassette_format))


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert_unknown_name_is_refused(cassette_format, "verify_files")
    assert_unknown_name_is_refused(cassette_format, "_private")


def test_verify_file_imports_only_the_streaming_verifier() -> None:
    """A fresh interpreter: `cassette verify` start-up loads no decoder, loader or writer.

    It loads the record declarations (its one-pass check is derived from them) but never
    the ordered rules, the decoder, the loader, the writer or `returns`.
    """
    probe = (
        "import sys\n"
        "from cassette_format import verify_file\n"
        "names = (n for n in sys.modules if n.startswith(('cassette_', 'returns')))\n"
        "print(','.join(sorted(names)))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    loaded = set(done.stdout.strip().split(","))
    assert "cassette_format.read.verify" in loaded
    assert not loaded & {
        "cassette_format.rules.interaction",
        "cassette_format.rules.header",
        "cassette_format.read.parse",
        "cassette_format.write.writer",
        "cassette_format.records.decode",
        "returns",
    }
