"""CassetteFormatError is a frozen value (code, message, line, JSON path); FMT-18, ERR-1."""

from __future__ import annotations

import pickle

import pytest
from cassette_format.errors import CASSETTE_FORMAT_CODE, CassetteFormatError


def test_fields_are_the_value() -> None:  # ERR-1
    error = CassetteFormatError("line 2 hash mismatch", line=2, path="line 2.hash")
    assert (error.code, error.message, error.line, error.path) == (
        CASSETTE_FORMAT_CODE,
        "line 2 hash mismatch",
        2,
        "line 2.hash",
    )
    assert error == CassetteFormatError("line 2 hash mismatch", line=2, path="line 2.hash")
    assert error != CassetteFormatError("line 2 hash mismatch", line=3, path="line 2.hash")
    assert str(error) == "line 2 hash mismatch"


@pytest.mark.parametrize("name", ["message", "line", "path", "code", "_line", "args", "other"])
def test_nothing_can_be_set_or_deleted_after_construction(name: str) -> None:
    error = CassetteFormatError("cassette is empty")
    with pytest.raises(AttributeError):
        setattr(error, name, "changed")
    with pytest.raises(AttributeError):
        delattr(error, name)
    assert (error.message, error.line, error.path) == ("cassette is empty", None, None)


def test_raising_still_records_cause_and_traceback() -> None:  # FMT-18: raised at the edges
    cause = OSError(2, "gone")
    with pytest.raises(CassetteFormatError) as caught:
        raise CassetteFormatError('cannot read cassette "/x"', cause=cause)
    assert caught.value.__cause__ is cause
    assert caught.value.__traceback__ is not None


def test_at_line_is_a_new_value() -> None:
    error = CassetteFormatError("line 1 is not a cassette header", path="header")
    moved = error.at_line(1)
    assert (moved.line, moved.path, error.line) == (1, "header", None)


def test_pickles_as_the_same_value() -> None:
    error = CassetteFormatError("line 4 duplicates sequence 2", line=4)
    assert pickle.loads(pickle.dumps(error)) == error
