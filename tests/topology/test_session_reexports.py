"""`cassette_topology.sessions` keeps exporting the session-log names now owned by the format."""

from __future__ import annotations

import cassette_format.sessions as owner
import cassette_topology.sessions as users_import
import pytest


@pytest.mark.parametrize("name", sorted(set(owner.__all__) & set(users_import.__all__)))
def test_a_reexported_name_is_the_formats_own_object(name: str) -> None:
    assert getattr(users_import, name) is getattr(owner, name)


def test_every_public_session_log_name_is_still_reexported() -> None:
    assert set(owner.__all__) - set(users_import.__all__) == {"quote"}
