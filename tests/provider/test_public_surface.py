"""cassette_provider's public names: one surface for type checkers and at run time (issue 15)."""

from __future__ import annotations

import cassette_provider
from support.public_surface import assert_surface_is_served, assert_unknown_name_is_refused


def test_the_typed_surface_is_what_the_package_serves() -> None:
    assert_surface_is_served(cassette_provider)


def test_an_unknown_name_is_an_attribute_error() -> None:
    assert_unknown_name_is_refused(cassette_provider, "Recorder")
