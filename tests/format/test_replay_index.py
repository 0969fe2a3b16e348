"""The lazy reader agrees with `load_cassette` and fails closed on bytes changed after its pass.

`read_replay_index` verifies a cassette in one pass keeping compact facts only, and reads an
interaction's line back when replay delivers it (issue 23). Over the interop corpus and
hypothesis-built files it must refuse what the loader refuses with the same message, and
otherwise index exactly the loader's records: call keys, groups in occurrence order,
parents, FMT-19's ambiguity count, the first redacted result, and each interaction decoded.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import pytest
from cassette_format import (
    CassetteFile,
    FormatProblem,
    InteractionBody,
    RequestStorage,
    ResultOutcome,
    ambiguous_groups,
    interaction_line,
    read_cassette,
    seal_interaction,
)
from cassette_format.read.replay_index import ReplayIndex, read_replay_index
from cassette_format.read.replay_keys import ReplayKeys
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from format.builders import cassette_bytes, line_specs, make_body, outcome_for, spec_bodies

INTEROP = Path(__file__).resolve().parents[3] / "shared" / "interop"


def _problem(path: Path) -> FormatProblem | None:
    match read_cassette(path):
        case Failure(problem):
            assert isinstance(problem, FormatProblem)
            return problem
    return None


def assert_agrees(path: Path) -> ReplayIndex | None:
    """The index of `path` holds what `read_cassette` loads, or fails as it does."""
    loaded = read_cassette(path)
    indexed = read_replay_index(path)
    match loaded:
        case Failure(problem):
            assert isinstance(indexed, Failure), path
            assert indexed.failure() == problem
            assert indexed.failure().message == problem.message
            return None
    assert isinstance(indexed, Success), (path, indexed)
    cassette: CassetteFile = loaded.unwrap()
    index: ReplayIndex = indexed.unwrap()
    interactions = cassette.interactions
    assert index.header == cassette.header
    assert len(index) == len(interactions)
    assert index.ambiguous_groups == len(ambiguous_groups(cassette))
    redacted = [
        at
        for at, item in enumerate(interactions)
        if isinstance(item.outcome, ResultOutcome) and item.outcome.redactions > 0
    ]
    assert index.first_redacted == (redacted[0] if redacted else -1)
    by_key = {item.call_key: at for at, item in enumerate(interactions)}
    for at, item in enumerate(interactions):
        assert index.call_key(at) == item.call_key
        assert index.parent_key(at) == item.parent_key
        assert index.group(at) == item.group_key
        assert (index.sequence(at), index.occurrence(at)) == (item.sequence, item.occurrence)
        request = item.request
        view = request.metadata if request.storage == "metadata" else request.value
        assert index.label(at) == view.label
        timing = item.timing
        assert index.longest_delay(at) == max(timing.start_latency_ms, timing.duration_ms)
        assert index.find_call(item.call_key) == at
        assert index.parent_position(at) == by_key.get(item.parent_key, -1)
        delivered = index.interaction(at).unwrap()  # compared as lines: results nest deep
        assert interaction_line(delivered).unwrap() == interaction_line(item).unwrap()
    groups: dict[tuple[str, str, str], list[int]] = {}
    for at, item in sorted(enumerate(interactions), key=lambda pair: pair[1].occurrence):
        groups.setdefault(item.group_key, []).append(at)
    for group, members in groups.items():
        chain = [index.find_group(group)]
        while (following := index.next_in_group(chain[-1])) >= 0:
            chain.append(following)
        assert chain == members
    assert index.find_call("no such key") == -1
    assert index.find_group(("root", "sha256:" + "0" * 64, "not a digest")) == -1
    return index


def _cassette_cases() -> list[str]:
    manifest = json.loads((INTEROP / "manifest.json").read_text(encoding="utf-8"))
    return [case["files"][0] for case in manifest["cases"] if case["type"] == "cassette"]


@pytest.mark.parametrize("relative", _cassette_cases())
def test_the_index_agrees_with_the_loader_on_the_interop_corpus(relative: str) -> None:
    # FMT-1..19: same verdict, same message, same records
    assert_agrees(INTEROP / relative)


@st.composite
def _bodies(draw: st.DrawFn, storage: RequestStorage) -> list[InteractionBody]:
    """A file's interactions: `line_specs` groups, each under a drawn parent (nested or not)."""
    specs = draw(line_specs(kinds=("result", "start-error", "result-error")))
    parents = {tag: draw(st.sampled_from(["root", "key-0", "key-1", "elsewhere"])) for tag in "abc"}
    return [
        dataclasses.replace(body, parent_key=parents[spec[2]])
        for spec, body in zip(specs, spec_bodies(specs, storage), strict=True)
    ]


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), storage=st.sampled_from(["metadata", "full"]))
def test_the_index_agrees_with_the_loader_on_generated_files(
    tmp_path: Path, data: st.DataObject, storage: RequestStorage
) -> None:
    # FMT-16, FMT-17, FMT-19; with tags narrowed to a bit or none every lookup collides
    bodies = data.draw(_bodies(storage))
    tag_bits = data.draw(st.sampled_from([None, 1, 0]))
    path = tmp_path / "generated.cassette.jsonl"
    path.write_bytes(cassette_bytes(bodies, storage))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            "cassette_format.read.replay_index.ReplayKeys",
            functools.partial(ReplayKeys, tag_bits=tag_bits),
        )
        assert_agrees(path)


def _three_calls(tmp_path: Path) -> Path:
    path = tmp_path / "three.cassette.jsonl"
    bodies = [make_body(sequence, request_tag=f"t{sequence}") for sequence in (1, 2, 3)]
    same = outcome_for("result", 2)
    path.write_bytes(cassette_bytes([dataclasses.replace(body, outcome=same) for body in bodies]))
    return path


def _rewrite_line(path: Path, number: int, change: bytes, into: bytes) -> bytes:
    """Change line `number` in place (same file, same length); the whole file's new bytes."""
    lines = path.read_bytes().split(b"\n")
    assert len(change) == len(into)
    assert change in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(change, into, 1)
    data = b"\n".join(lines)
    with path.open("r+b") as handle:
        handle.write(data)
    return data


def test_a_line_changed_after_the_pass_fails_closed_when_delivered(tmp_path: Path) -> None:
    # FMT-10 rule 10: the loader's message for the same bytes, only at delivery
    path = _three_calls(tmp_path)
    index = read_replay_index(path).unwrap()
    _rewrite_line(path, 3, b"answer 2", b"answer 9")
    expected = _problem(path)
    assert expected is not None
    assert expected.message == "line 3 hash mismatch"
    assert index.interaction(1) == Failure(expected)
    assert isinstance(index.interaction(0), Success)  # lines left alone still deliver
    assert isinstance(index.interaction(2), Success)


def _reseal(path: Path, index: ReplayIndex, position: int) -> None:
    """Give interaction `position` another outcome and a consistent new hash, in place."""
    lines = path.read_bytes().split(b"\n")
    record = json.loads(lines[position + 1])
    changed = dataclasses.replace(
        index.interaction(position).unwrap(), outcome=outcome_for("result", 6)
    )
    resealed = seal_interaction(changed.body, record["previousHash"]).unwrap()
    lines[position + 1] = interaction_line(resealed).unwrap().rstrip(b"\n")
    with path.open("r+b") as handle:
        handle.write(b"\n".join(lines))


def test_a_rehashed_line_fails_closed_with_the_next_lines_link(tmp_path: Path) -> None:
    # FMT-15: a consistent new hash breaks the next line's previousHash, as the loader says
    path = _three_calls(tmp_path)
    index = read_replay_index(path).unwrap()
    _reseal(path, index, 1)
    expected = _problem(path)
    assert expected is not None
    assert expected.line == 4
    assert index.interaction(1) == Failure(expected)


def test_a_rehashed_last_line_is_refused_not_delivered(tmp_path: Path) -> None:
    path = _three_calls(tmp_path)
    index = read_replay_index(path).unwrap()
    _reseal(path, index, 2)
    assert _problem(path) is None  # a valid file again, but not the one indexed
    refused = index.interaction(2)
    assert isinstance(refused, Failure)
    assert refused.failure().message == (
        "line 4 changed after the cassette was read; install the replay again"
    )


def test_an_unreadable_path_is_the_loaders_error(tmp_path: Path) -> None:  # FMT-18
    missing = tmp_path / "missing.cassette.jsonl"
    assert read_replay_index(missing) == read_cassette(missing)
    assert read_replay_index(tmp_path) == read_cassette(tmp_path)
