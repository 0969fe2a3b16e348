"""Hostile inputs to `cassette`: documented exit codes, one message, no traceback, no payload.

Standards (CLI-11, ERR-4, DIAG-6): a bad file or argument exits 1 with `display(message)` on
stderr and nothing on stdout; nothing a cassette or session log stores as a prompt, result,
error body, chunk or meta ever reaches the output. A marker planted in every payload place
of a real recording checks the second on every command, for the brief's table of hostile
files and for hypothesis-mutated ones. Found by the hostile-input audit: a session log whose
script is empty (a header-only log, a fork child made only of seeded calls) crashed
`verify`/`inspect` with a traceback; a FIFO or device named like a session log hung
`inspect`/`verify` of its directory; `report -o <directory>` printed a raw OS error naming a
temporary file.
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cassette_canonical import JsonValue, fingerprint
from cassette_cli import main
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.models.files import write_session_logs_sync
from cassette_topology.sessions import RecordedCall, SessionLog, SessionLogHeader
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.paths import INTEROP

MARKER = "ZQX-HOSTILE-5150"
BASE = INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl"


def run(*args: str) -> tuple[int, str, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=stdout, stderr=stderr)
    return code, stdout.getvalue(), stderr.getvalue()


# --- a recording with the marker in every payload place -----------------------------------


class _Boom(Exception):
    name = f"Boom{MARKER}"
    code = f"CODE{MARKER}"


async def _record(path: Path, storage: str) -> None:
    async def child(request: StartRequest, _agent: SimpleAgent) -> object:
        if request.label == "fails":
            raise _Boom(f"{MARKER} failure body")
        nested = [{"type": "text", "text": MARKER}]
        return {
            "output": [
                {"type": "text", "text": f"{MARKER} answer"},
                {"type": "tool-result", "toolCallId": MARKER, "content": nested},
            ],
            "stopReason": "completed" if request.label != "odd" else f"stop {MARKER}",
            f"extra{MARKER}": MARKER,
        }

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", child))
    root = SimpleAgent(session_id="root")
    config = RecordConfig(file=str(path), request_storage=storage, redact_secrets=False)  # type: ignore[arg-type]
    async with install_cassette(registry, config):
        for label in ("a", "fails", "odd", None):
            request = StartRequest(
                prompt=[{"type": "text", "text": f"{MARKER} prompt"}],
                parent=root,
                label=label,
                persona=MARKER,
                agent_options={"provider": "p", "k": MARKER},
                output_schema={"x": MARKER},
            )
            run_ = await registry.start("cassette", request)
            try:
                await run_.result
            except _Boom:
                pass
            finally:
                await run_.dispose()


@pytest.fixture(scope="module")
def marked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Marked recordings by storage: metadata and full."""
    folder = tmp_path_factory.mktemp("marked")
    recorded: dict[str, bytes] = {}
    for storage in ("metadata", "full"):
        path = folder / f"{storage}.cassette.jsonl"
        asyncio.run(_record(path, storage))
        recorded[storage] = path.read_bytes()
        assert MARKER.encode() in recorded[storage]  # the payload really is in the file
    return recorded


def _commands(path: str, against: str, report: str) -> list[tuple[str, ...]]:
    return [
        ("verify", path),
        ("verify", "--json", path),
        ("verify", "--jobs", "1", path, str(BASE)),
        ("inspect", path),
        ("inspect", "--json", "--show-calls", path),
        ("inspect", "--show-calls", "--tree", "--color", "always", path),
        ("diff", path, against),
        ("diff", "--json", "--show-calls", against, path),
        ("diff", "--drift", "--show-calls", against, path),
        ("diff", "--drift", "--json", path, against),
        ("diff", "--format", "markdown", against, path),
        ("report", path, "--against", against, "-o", report),
    ]


def _judge_everywhere(data: bytes, folder: Path, against: Path) -> None:
    """Every command: documented exit code, output only on success, never the marker."""
    path = folder / "hostile.cassette.jsonl"
    path.write_bytes(data)
    report = folder / "report.html"
    for argv in _commands(str(path), str(against), str(report)):
        report.unlink(missing_ok=True)
        code, out, err = run(*argv)
        allowed = (0, 1, 2) if argv[0] == "diff" else (0, 1)
        assert code in allowed, (argv, err)
        assert MARKER not in out + err, argv
        if code == 1 and argv[1] != "--jobs":  # many-file verify reports per line on stdout
            assert out == "", argv
            assert err.count("\n") == 1, (argv, err)  # one message, no traceback
        if code != 1 and argv[0] == "report":
            assert MARKER not in report.read_text(encoding="utf-8")


# --- the brief's table of hostile files ------------------------------------------------------


def _header(data: bytes) -> bytes:
    return data.split(b"\n", 1)[0]


HOSTILE_FILES: dict[str, Callable[[bytes], bytes]] = {
    "empty": lambda data: b"",
    "header only": lambda data: _header(data) + b"\n",
    "header only, no newline": _header,
    "blank lines only": lambda data: b"\n \n\t\r\n",
    "truncated mid-line": lambda data: data[: len(data) // 2],
    "truncated mid-UTF-8": lambda data: data[: data.index(b"\n") + 40] + "é".encode()[:1],
    "NUL inserted": lambda data: data.replace(MARKER.encode(), b"\x00" + MARKER.encode(), 1),
    "CR inserted": lambda data: data.replace(b"\n", b"\r", 1),
    "BOM at the start": lambda data: b"\xef\xbb\xbf" + data,
    "BOM on line 2": lambda data: data.replace(b"\n", b"\n\xef\xbb\xbf", 1),
    "lone surrogate escape": lambda data: data.replace(
        MARKER.encode(), b"\\ud800" + MARKER.encode()
    ),
    "number 1e999": lambda data: data.replace(b'"sequence":1', b'"sequence":1e999', 1),
    "number -0": lambda data: data.replace(b'"durationMs":', b'"durationMs":-0,"x":', 1),
    "number 2^53+1": lambda data: data.replace(b'"sequence":1', b'"sequence":9007199254740993', 1),
    "100k-digit number": lambda data: data.replace(
        b'"sequence":1', b'"sequence":' + b"9" * 100_000, 1
    ),
    "100k-deep nesting": lambda data: _header(data) + b"\n" + b"[" * 100_000 + b"]" * 100_000,
    "100k-deep, unterminated": lambda data: _header(data) + b"\n" + b'{"a":' * 100_000,
    "duplicate keys": lambda data: data.replace(b'{"callKey"', b'{"callKey":"x","callKey"', 1),
    "a 17 MB line": lambda data: _header(data) + b'\n"' + b"x" * (17 * 2**20) + b'"\n',
    "swapped lines": lambda data: b"\n".join([*data.split(b"\n")[:1], *data.split(b"\n")[2:0:-1]]),
}


#: Shapes that keep only the header of the recording need it in one storage only.
_HEADER_ONLY_SHAPES = frozenset(
    {"empty", "header only", "header only, no newline", "blank lines only", "100k-deep nesting"}
    | {"100k-deep, unterminated", "a 17 MB line"}
)


@pytest.mark.parametrize(
    ("shape", "storage"),
    [
        (shape, storage)
        for shape in sorted(HOSTILE_FILES)
        for storage in ("metadata", "full")
        if storage == "full" or shape not in _HEADER_ONLY_SHAPES
    ],
)
def test_a_hostile_file_gets_a_documented_answer_without_payload(
    marked: dict[str, bytes], tmp_path: Path, shape: str, storage: str
) -> None:  # CLI-11, ERR-4, FMT-18
    against = tmp_path / "against.cassette.jsonl"
    against.write_bytes(marked["full"])
    _judge_everywhere(HOSTILE_FILES[shape](marked[storage]), tmp_path, against)


def test_the_marked_recordings_themselves_show_no_payload(
    marked: dict[str, bytes], tmp_path: Path
) -> None:  # DIAG-6: the successful outputs are metadata only
    against = tmp_path / "against.cassette.jsonl"
    against.write_bytes(marked["metadata"])
    _judge_everywhere(marked["full"], tmp_path, against)
    assert run("verify", str(tmp_path / "hostile.cassette.jsonl"))[0] == 0


def _mutate(draw: st.DrawFn, data: bytes) -> bytes:
    """A byte flip, a cut, an inserted token or a line edit (no hash recomputed)."""
    kind = draw(st.sampled_from(["flip", "cut", "insert", "line"]))
    at = draw(st.integers(0, len(data) - 1))
    if kind == "flip":
        return data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
    if kind == "cut":
        return data[:at]
    if kind == "insert":
        tokens = [b'"', b"{", b"}", b",", b":", b"\\", b"\\u", b"\xff", b"\x00", b"\r", b"\n"]
        return data[:at] + draw(st.sampled_from(tokens)) + data[at:]
    lines = data.split(b"\n")
    index = draw(st.integers(0, len(lines) - 1))
    lines.insert(index, lines[index]) if draw(st.booleans()) else lines.pop(index)
    return b"\n".join(lines)


@st.composite
def _mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    data = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 3))):
        if data:
            data = _mutate(draw, data)
    return data


def test_mutated_marked_recordings_never_show_payload(
    marked: dict[str, bytes], tmp_path: Path
) -> None:  # CLI-11, ERR-4: the property over hypothesis-mutated files
    against = tmp_path / "against.cassette.jsonl"
    against.write_bytes(marked["full"])
    seeds = [marked["metadata"], marked["full"]]

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(data=_mutated(seeds))
    def check(data: bytes) -> None:
        _judge_everywhere(data, tmp_path, against)

    check()


def test_the_console_script_prints_no_traceback_and_no_payload(
    marked: dict[str, bytes], tmp_path: Path
) -> None:  # CLI-1, CLI-11: the real entry point, its own stream encoding
    broken = tmp_path / "broken.cassette.jsonl"
    broken.write_bytes(HOSTILE_FILES["lone surrogate escape"](marked["full"])[:-200])
    fine = tmp_path / "fine.cassette.jsonl"
    fine.write_bytes(marked["full"])
    for argv, expected in (
        (["verify", str(broken)], 1),
        (["inspect", "--show-calls", "--tree", str(fine)], 0),
        (["diff", "--drift", str(fine), str(broken)], 1),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "cassette_cli", *argv],
            capture_output=True,
            env={**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
            check=False,
        )
        assert done.returncode == expected, done.stderr
        assert b"Traceback" not in done.stderr
        assert MARKER.encode() not in done.stdout + done.stderr


# --- session logs ----------------------------------------------------------------------------


def _session_call(index: int, text: str) -> RecordedCall:
    request: JsonValue = {"model": "m", "messages": [{"role": "user", "content": text}]}
    chunk: JsonValue = {"choices": [{"message": {"content": f"{MARKER} answer"}}]}
    digest = fingerprint(request).unwrap()
    return RecordedCall(index, request, digest, False, (chunk,), meta={"note": MARKER})


def _empty_script_logs() -> tuple[SessionLog, ...]:
    """A primary with one call, a fork child made only of seeded calls, a header-only child."""
    first = _session_call(1, f"{MARKER} parent")
    primary = SessionLog(SessionLogHeader("parent", "2026-01-01T00:00:00Z"), (first,))
    seeded = SessionLog(
        SessionLogHeader("seeded", "2026-01-01T00:00:01Z", parent_session="parent", seed_calls=1),
        (first,),
    )
    silent = SessionLog(
        SessionLogHeader("silent", "2026-01-01T00:00:02Z", parent_session="parent"), ()
    )
    return primary, seeded, silent


def test_a_session_log_with_an_empty_script_is_reported_not_crashed(tmp_path: Path) -> None:
    # LLMREPLAY-4: a fork child whose calls are all seeded has an empty script, and a session
    # that made no model call has none at all; both are valid logs
    folder = tmp_path / "sessions"
    write_session_logs_sync(folder, _empty_script_logs())
    for name in ("session.1.jsonl", "session.2.jsonl"):
        child = str(folder / name)
        for argv in (("verify", child), ("inspect", "--show-calls", child)):
            code, out, err = run(*argv)
            assert (code, err) == (0, ""), argv
            assert "script 0" in out
            assert "first request binding fingerprint" not in out
            assert out.endswith(
                "OK: session log verified (1 call(s))\n"
                if name.endswith("1.jsonl")
                else "OK: session log verified (0 call(s))\n"
            )
    code, out, err = run("inspect", "--show-calls", str(folder))
    assert (code, err) == (0, "")
    assert out.endswith(
        "Harvest order (primary first): parent, seeded, silent\nOK: 3 session log(s) verified\n"
    )
    code, out, err = run("verify", "--json", str(folder))
    assert (code, err) == (0, "")
    assert MARKER not in out


@pytest.mark.parametrize("kind", ["fifo", "device"])
@pytest.mark.timeout(30, method="thread")  # before the fix a FIFO blocked the read forever
def test_a_special_file_named_like_a_session_log_never_hangs_a_harvest(
    tmp_path: Path, kind: str
) -> None:  # FMT-18's rule for cassettes, kept for session logs
    folder = tmp_path / "sessions"
    write_session_logs_sync(folder, _empty_script_logs()[:1])
    special = folder / "session.1.jsonl"
    if kind == "fifo":
        os.mkfifo(special)
    else:
        special.symlink_to(os.devnull)  # a character device: read as empty before the fix
    for argv in (("inspect", str(folder)), ("verify", str(folder))):
        code, out, err = run(*argv)
        assert code == 1, argv
        assert 'cannot read session log "' in out + err, argv
        assert MARKER not in out + err


def test_report_to_a_directory_names_the_target_not_a_temporary_file(tmp_path: Path) -> None:
    # CLI-11: exit 1 with one message naming what could not be written
    target = tmp_path / "taken"
    target.mkdir()
    code, out, err = run("report", str(BASE), "-o", str(target))
    assert (code, out) == (1, "")
    assert err.startswith(f'cannot write report "{target}": ')
    assert ".report-" not in err
    assert list(tmp_path.iterdir()) == [target]  # no temporary page left behind
