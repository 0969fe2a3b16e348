"""`verify`/`inspect` on model-call session logs (issue 13): metadata only, codec-verified.

Cassette inputs keep the reference's output (D-4); these tests cover session-log inputs only.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from cassette_canonical import JsonValue, fingerprint
from cassette_cli import main
from cassette_cli.display import display
from cassette_provider.models.files import write_session_logs_sync
from cassette_topology.sessions import RecordedCall, SessionLog, SessionLogHeader
from support.paths import INTEROP

CANARIES = ("CANARY-PROMPT-7f3a", "CANARY-RESPONSE-91bd", "CANARY-META-c0de")
CASSETTE = INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl"


def _call(index: int, prompt: str, *, streamed: bool) -> RecordedCall:
    request: JsonValue = {"model": "m", "messages": [{"role": "user", "content": prompt}]}
    digest = fingerprint(request).unwrap()
    chunks: tuple[JsonValue, ...] = (
        tuple({"delta": f"{CANARIES[1]}-{part}"} for part in range(3))
        if streamed
        else ({"choices": [{"message": {"content": CANARIES[1]}}]},)
    )
    return RecordedCall(index, request, digest, streamed, chunks, meta={"note": CANARIES[2]})


def _logs(primary_id: str = "parent-session") -> tuple[SessionLog, ...]:
    parent_first = _call(1, f"{CANARIES[0]} parent one", streamed=False)
    primary = SessionLog(
        SessionLogHeader(primary_id, "2026-01-01T00:00:00Z"),
        (parent_first, _call(2, f"{CANARIES[0]} parent two", streamed=True)),
    )
    child = SessionLog(
        SessionLogHeader(
            "child-alpha",
            "2026-01-01T00:00:01Z",
            parent_session=primary_id,
            seed_calls=1,
            call_key="root/0:child",
            first_call_ordinal=1,
        ),
        (parent_first, _call(2, f"{CANARIES[0]} child", streamed=True)),
    )
    return primary, child


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


def _no_bodies(*texts: str) -> None:
    for text in texts:
        for canary in CANARIES:
            assert canary not in text


@pytest.fixture
def logs_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "sessions"
    write_session_logs_sync(directory, _logs())
    return directory


def test_verify_valid_session_log_reports_metadata_only(logs_dir: Path) -> None:
    code, out, err = run("verify", str(logs_dir / "session.jsonl"))
    assert code == 0, err
    assert "session parent-session  role=0 generation=0" in out
    assert "calls 2 (script 2, streamed 1, not streamed 1), chunks 4" in out
    assert out.endswith("OK: session log verified (2 call(s))\n")
    _no_bodies(out, err)


def test_verify_json_document_holds_the_child_script(logs_dir: Path) -> None:
    code, out, err = run("verify", "--json", str(logs_dir / "session.1.jsonl"))
    assert code == 0, err
    document = json.loads(out)
    assert document["ok"] is True
    assert document["kind"] == "session-log"
    assert document["sessionId"] == "child-alpha"
    assert (document["role"], document["generation"]) == (1, 0)
    assert document["parentSession"] == "parent-session"
    assert document["callKey"] == "root/0:child"
    assert (document["firstCallOrdinal"], document["seedCalls"]) == (1, 1)
    assert (document["calls"], document["scriptCalls"]) == (2, 1)
    assert (document["streamedCalls"], document["chunks"]) == (1, 4)
    assert [call["seeded"] for call in document["callList"]] == [True, False]
    # The script's first request is the child's own call 2, not the seeded parent call.
    assert document["firstRequestFingerprint"] == document["callList"][1]["requestFingerprint"]
    assert document["firstRequestBindingFingerprint"].startswith("sha256:")
    _no_bodies(out, err)


def test_tampered_session_log_fails_naming_the_line(logs_dir: Path) -> None:
    path = logs_dir / "session.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    target = next(n for n, line in enumerate(lines) if f"{CANARIES[1]}-1" in line)
    assert target == 6  # line 7: the second chunk of call 2
    lines[target] = lines[target].replace(f"{CANARIES[1]}-1", f"{CANARIES[1]}-X")
    path.write_text("".join(lines), encoding="utf-8")
    for command in ("verify", "inspect"):
        code, out, err = run(command, str(path))
        assert code == 1
        assert out == ""
        assert "line 7: hash mismatch" in err
        _no_bodies(out, err)


def test_inspect_directory_harvests_highest_generation_primary_first(logs_dir: Path) -> None:
    write_session_logs_sync(logs_dir, _logs("parent-v1"))  # generation 1 of both roles
    code, out, err = run("inspect", "--json", "--show-calls", str(logs_dir))
    assert code == 0, err
    document = json.loads(out)
    assert document["harvestOrder"] == ["parent-v1", "child-alpha"]
    assert [session["generation"] for session in document["sessions"]] == [1, 1]
    assert [session["harvestOrdinal"] for session in document["sessions"]] == [0, 1]
    human = run("inspect", "--show-calls", str(logs_dir))
    assert human[0] == 0
    assert "Harvest order (primary first): parent-v1, child-alpha" in human[1]
    assert "call 1: not streamed, 1 chunk(s), request " in human[1]
    assert "(seeded from parent)" in human[1]
    _no_bodies(out, err, human[1], human[2])


def test_verify_mixed_directory_judges_each_file_by_its_header(
    logs_dir: Path, tmp_path: Path
) -> None:
    shutil.copy(CASSETTE, logs_dir / "a.cassette.jsonl")
    shutil.copy(logs_dir / "session.jsonl", logs_dir / "log.cassette.jsonl")
    code, out, err = run("verify", str(logs_dir))
    assert code == 0, err
    assert "interaction(s)" in out
    assert "log.cassette.jsonl  session log, 2 call(s)  (parent-session)" in out
    assert "2 session log(s), harvest order: parent-session, child-alpha" in out
    assert "2 cassette(s): 2 verified, 0 failed" in out
    assert out.endswith("1 session directory(ies): 1 verified, 0 failed\n")
    code, out, err = run("verify", "--json", str(logs_dir))
    assert code == 0, err
    document = json.loads(out)
    assert document["failed"] == 0
    assert document["sessionDirectories"][0]["harvestOrder"] == ["parent-session", "child-alpha"]
    _no_bodies(out, err)


def test_verify_directory_with_a_broken_session_log_fails(logs_dir: Path) -> None:
    path = logs_dir / "session.1.jsonl"
    path.write_text(path.read_text(encoding="utf-8").replace("child-alpha", "child-beta"))
    code, out, err = run("verify", str(logs_dir))
    assert code == 1
    assert "FAIL" in out
    assert "line 1: hash mismatch" in out
    assert out.endswith("1 session directory(ies): 0 verified, 1 failed\n")
    _no_bodies(out, err)


def test_session_strings_use_display_escaping(tmp_path: Path) -> None:
    write_session_logs_sync(tmp_path, _logs("evil\x1b[31m\u202e"))
    code, out, err = run("inspect", str(tmp_path / "session.jsonl"))
    assert code == 0, err
    assert "\x1b" not in out
    assert "\u202e" not in out
    assert f"session {display('evil' + chr(27) + '[31m' + chr(0x202E))}  role=0" in out
