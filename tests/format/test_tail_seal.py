"""The tail seal: a removed suffix is named, the cassette format is unchanged (issue 25)."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
from pathlib import Path

import pytest
from cassette_canonical import canonical_json
from cassette_format import CassetteFormatError, CassetteWriter, load_cassette, verify_file
from cassette_format.read.replay_index import read_replay_index
from cassette_format.read.tail_seal import SEAL_KIND, SEAL_SUFFIX, TailSeal, read_seal, seal_path
from cassette_format.write.tail_seal import replace_sealed
from returns.result import Failure
from support.paths import INTEROP

from format.builders import make_body, make_header

COUNT = 5


def _record(path: Path, count: int = COUNT) -> list[bytes]:
    """A cleanly closed, sealed cassette of `count` interactions; its lines."""
    with CassetteWriter.open_blocking(path, make_header(), "create") as writer:
        for sequence in range(1, count + 1):
            writer.append_blocking(make_body(sequence))
    return path.read_bytes().splitlines(keepends=True)


def _stale_step(path: Path) -> str:
    """What the seal messages add: the next step when the seal, not the file, is out of date."""
    return (
        "; if you restored or re-recorded this cassette on purpose (git checkout, a merge), "
        f"its seal is stale: rm {shlex.quote(seal_path(path))} "
        "(commit a cassette together with its .seal)"
    )


def _truncated_message(path: Path, holds: int) -> str:
    return (
        f'cassette is truncated: its seal "{seal_path(path)}" records {COUNT} interactions, '
        f"the file holds {holds} ({COUNT - holds} missing at the end)" + _stale_step(path)
    )


def test_a_clean_close_writes_a_canonical_seal_beside_the_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    cassette = load_cassette(path)
    data = Path(seal_path(path)).read_bytes()
    last = cassette.interactions[-1].hash
    document = {
        "cassetteId": cassette.header.cassette_id,
        "count": COUNT,
        "kind": SEAL_KIND,
        "lastHash": last,
    }
    assert data == canonical_json(document).unwrap().encode() + b"\n"
    assert read_seal(path) == TailSeal(cassette.header.cassette_id, COUNT, last)
    assert stat.S_IMODE(os.stat(seal_path(path)).st_mode) == 0o600
    assert verify_file(path)["interactions"] == COUNT


@pytest.mark.parametrize("kept", range(COUNT))  # the header plus `kept` complete lines
def test_truncating_after_any_complete_line_is_reported(tmp_path: Path, kept: int) -> None:
    path = tmp_path / "c.cassette.jsonl"
    lines = _record(path)
    path.write_bytes(b"".join(lines[: 1 + kept]))
    with pytest.raises(CassetteFormatError) as verified:
        verify_file(path)
    assert verified.value.message == _truncated_message(path, kept)
    with pytest.raises(CassetteFormatError) as loaded:  # the loader says the same
        load_cassette(path)
    assert loaded.value.message == verified.value.message
    indexed = read_replay_index(path)  # and so does replay's lazy reader
    assert isinstance(indexed, Failure)
    assert indexed.failure().message == verified.value.message


def test_no_seal_is_no_error(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    lines = _record(path)
    os.unlink(seal_path(path))
    path.write_bytes(b"".join(lines[:3]))
    assert verify_file(path)["interactions"] == 2  # what the reference can tell, no more


def test_reference_cassettes_have_no_seal_and_verify_as_before(tmp_path: Path) -> None:
    path = tmp_path / "ref.cassette.jsonl"
    shutil.copy(INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl", path)
    assert read_seal(path) is None
    assert verify_file(path)["interactions"] == 5


def test_append_reseals_and_a_sealed_prefix_may_grow(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    with CassetteWriter.open_blocking(path, make_header(), "append") as writer:
        writer.append_blocking(make_body(writer.next_sequence))
    seal = read_seal(path)
    assert isinstance(seal, TailSeal)
    assert seal.count == COUNT + 1
    assert seal.last_hash == load_cassette(path).interactions[-1].hash
    # a writer that seals nothing (the reference) appends: the sealed prefix is still there
    stale = Path(seal_path(path))
    stale.write_bytes(TailSeal(seal.cassette_id, COUNT, _hash_at(path, COUNT)).to_bytes())
    assert verify_file(path)["interactions"] == COUNT + 1


def _hash_at(path: Path, count: int) -> str:
    return load_cassette(path).interactions[count - 1].hash if count else ""


def test_append_to_a_truncated_cassette_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    lines = _record(path)
    path.write_bytes(b"".join(lines[:2]))
    with pytest.raises(CassetteFormatError, match="cassette is truncated: its seal"):
        CassetteWriter.open_blocking(path, make_header(), "append")


def test_a_rewritten_sealed_record_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    seal = read_seal(path)
    assert isinstance(seal, TailSeal)
    Path(seal_path(path)).write_bytes(
        TailSeal(seal.cassette_id, seal.count, "sha256:" + "0" * 64).to_bytes()
    )
    with pytest.raises(CassetteFormatError) as caught:
        verify_file(path)
    assert caught.value.message == (
        f'cassette does not match its seal "{seal_path(path)}": interaction {COUNT} '
        "is not the one sealed (the file was rewritten after it was sealed)" + _stale_step(path)
    )


def test_another_cassettes_seal_is_stale_and_ignored(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    Path(seal_path(path)).write_bytes(
        TailSeal("00000000-0000-4000-8000-0000000000ff", 99, "sha256:" + "0" * 64).to_bytes()
    )
    assert verify_file(path)["interactions"] == COUNT


@pytest.mark.parametrize(
    "content",
    [b"", b"not json\n", b'{"kind":"other"}\n', json.dumps({"kind": SEAL_KIND}).encode()],
)
def test_a_damaged_seal_is_named(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    Path(seal_path(path)).write_bytes(content)
    with pytest.raises(CassetteFormatError) as caught:
        verify_file(path)
    assert caught.value.message == (
        f'cassette seal "{seal_path(path)}" is not a valid tail seal; '
        f"remove it to verify without one: rm {shlex.quote(seal_path(path))}"
    )


def test_an_interrupted_recording_leaves_the_old_seal_and_cassette(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    before = (path.read_bytes(), Path(seal_path(path)).read_bytes())
    writer = CassetteWriter.open_blocking(path, make_header(), "truncate")
    writer.append_blocking(make_body(1))
    writer.abandon_blocking()
    assert (path.read_bytes(), Path(seal_path(path)).read_bytes()) == before
    assert verify_file(path)["interactions"] == COUNT


def test_truncate_replaces_the_seal_with_the_new_recordings(tmp_path: Path) -> None:
    path = tmp_path / "c.cassette.jsonl"
    _record(path)
    with CassetteWriter.open_blocking(path, make_header(), "truncate") as writer:
        writer.append_blocking(make_body(1))
    seal = read_seal(path)
    assert isinstance(seal, TailSeal)
    assert seal.count == 1
    assert verify_file(path)["interactions"] == 1


def test_replace_sealed_moves_the_seal_and_keeps_the_mode(tmp_path: Path) -> None:
    old, new = tmp_path / "c.cassette.jsonl", tmp_path / "c.cassette.jsonl.rewrite-1-ab"
    _record(old)
    old.chmod(0o640)
    _record(new, 2)
    replace_sealed(new, old)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "c.cassette.jsonl",
        "c.cassette.jsonl" + SEAL_SUFFIX,
    ]
    assert stat.S_IMODE(old.stat().st_mode) == 0o640
    assert verify_file(old)["interactions"] == 2
