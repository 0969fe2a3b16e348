"""SIGKILL a recording at random points and check nothing committed is lost (issue 12).

Usage: uv run --no-sync python scripts/kill_recording.py [--runs N] [--seed S] [--workers W]

For each write mode (`create`, `truncate`, `append`) it runs N children. Each child records
through the real provider stack (install_cassette + a FunctionProvider upstream, W calls in
flight at once) and prints `open`, then one label per call whose result returned (its line
is written), then `committed` after a clean dispose. The parent kills it with SIGKILL after
a random number of those lines (sometimes during or after the commit) and checks:

- create: the target is absent, or it is the complete recording (never a part of one);
- truncate: the previously committed cassette is byte-identical, or it was replaced by the
  complete recording;
- append: every label the child reported is in the file's complete lines, in place;
- a partial file left beside the target is named by `cassette verify <target>`.

It prints the counts per mode and exits 1 if any check failed. Every run uses a fresh
directory, so a writer lock left by a killed child never blocks the next run.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Literal, cast

Mode = Literal["create", "truncate", "append"]
MODES: tuple[Mode, ...] = ("create", "truncate", "append")
PRIOR = 3  # interactions in the cassette committed before a truncate/append run


def _answer(label: str) -> dict[str, object]:
    return {"output": [{"type": "text", "text": label}], "stopReason": "completed"}


async def _record(path: str, mode: Mode, labels: list[str], workers: int, seed: int) -> None:
    """The child's recording: `workers` calls in flight; report each persisted call on stdout."""
    from cassette_provider import (
        FunctionProvider,
        ProviderRegistry,
        RecordConfig,
        SimpleAgent,
        StartRequest,
        install_cassette,
    )

    jitter = random.Random(seed)

    async def upstream(request: StartRequest, _child: SimpleAgent) -> object:
        await asyncio.sleep(jitter.random() / 500)  # vary the completion order
        return _answer(request.label or "")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", upstream))
    root = SimpleAgent(session_id="kill-root")
    queue = list(reversed(labels))

    def report(line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    async def worker() -> None:
        while queue:
            label = queue.pop()
            prompt = [{"type": "text", "text": f"task {label}"}]
            run = await registry.start(
                "cassette", StartRequest(prompt=prompt, parent=root, label=label)
            )
            try:
                await run.result
            finally:
                await run.dispose()
            report(label)

    async with install_cassette(registry, RecordConfig(file=path, write_mode=mode)):
        report("open")
        await asyncio.gather(*(worker() for _ in range(workers)))
    report("committed")


def _prepare(folder: Path, mode: Mode) -> tuple[Path, bytes | None]:
    """The target of one run and, for truncate/append, the cassette committed before it."""
    target = folder / "run.cassette.jsonl"
    if mode == "create":
        return target, None
    labels = [f"prior-{index}" for index in range(PRIOR)]
    asyncio.run(_record_quietly(str(target), labels))
    return target, target.read_bytes()


async def _record_quietly(path: str, labels: list[str]) -> None:
    saved = sys.stdout
    sys.stdout = io.StringIO()
    try:
        await _record(path, "create", labels, 1, 0)
    finally:
        sys.stdout = saved


@dataclass(frozen=True, slots=True)
class Killed:
    """What the parent saw of one child: its reported lines, and whether it was killed."""

    lines: tuple[str, ...]
    killed: bool
    error: str  # the last line the child wrote on stderr, if it failed by itself


def _run_child(
    target: Path, mode: Mode, labels: list[str], workers: int, rng: random.Random
) -> Killed:
    """Start a child, read a random number of its report lines, then SIGKILL it."""
    command = [
        sys.executable,
        __file__,
        "--child",
        json.dumps(
            {
                "path": str(target),
                "mode": mode,
                "labels": labels,
                "workers": workers,
                "seed": rng.randrange(1 << 30),
            }
        ),
    ]
    errors = target.with_name("child-stderr.txt").open("w+b")
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors)
    stdout = cast(IO[bytes], child.stdout)
    wanted = rng.randint(1, len(labels) + 2)  # "open", some labels, maybe "committed"
    lines: list[str] = []
    while len(lines) < wanted:
        raw = stdout.readline()
        if not raw:
            break  # the child finished (or died) first
        lines.append(raw.decode().rstrip("\n"))
    time.sleep(rng.random() / 1000)  # a random point within the next millisecond
    killed = child.poll() is None
    if killed:
        os.kill(child.pid, signal.SIGKILL)
    lines.extend(raw.decode().rstrip("\n") for raw in stdout.readlines())
    child.wait()
    stdout.close()
    errors.seek(0)
    tail = errors.read().decode(errors="replace").strip().splitlines()
    errors.close()
    return Killed(tuple(lines), killed, tail[-1] if tail and not killed else "")


def _verify_stderr(target: Path) -> tuple[int, str]:
    from cassette_cli import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", str(target)], stdout=out, stderr=err)
    return code, err.getvalue()


def _labels_in(path: Path) -> tuple[set[str], str | None]:
    """Labels of the complete lines of `path` (by callKey), and why the file fails to verify."""
    from cassette_format import verify_file

    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    labels = set()
    for line in complete.splitlines()[1:]:
        key = json.loads(line)["callKey"]
        labels.add(key.split("/")[-1].rsplit("-", 1)[0])
    try:
        verify_file(path)
    except Exception as error:  # a sequence gap from calls in flight at the kill, or a torn tail
        return labels, str(error)
    return labels, None


def _check(
    target: Path, mode: Mode, before: bytes | None, labels: list[str], seen: Killed
) -> tuple[str, list[str]]:
    """The outcome of one run (a counter key) and the problems found."""
    from cassette_format.write.partial import partial_siblings

    problems: list[str] = []
    if "open" not in seen.lines and not seen.killed:
        return "child failed", [f"the child failed before recording: {seen.error}"]
    reported = [line for line in seen.lines if line not in {"open", "committed"}]
    partials = [p for p in partial_siblings(str(target)) if not _same(p.path, target)]
    committed = "committed" in seen.lines
    if mode == "append":
        found, refusal = _labels_in(target)
        missing = set(reported) - found
        if missing:
            problems.append(f"append lost {len(missing)} reported record(s)")
        if partials:
            problems.append("append left a partial file")
        if not found >= {f"prior-{i}" for i in range(PRIOR)}:
            problems.append("append lost a previously committed record")
        if refusal is None:
            return "all reported present", problems
        # Sequences are taken as lines are written, so calls in flight leave no gap (issue 12).
        problems.append(f"the killed append no longer loads: {refusal}")
        return "all reported present, but the file no longer loads", problems
    untouched = not target.exists() if before is None else target.read_bytes() == before
    if untouched:
        if committed:
            problems.append("the child reported a commit but the target is unchanged")
        if not partials:
            problems.append("no partial file left beside an uncommitted recording")
        code, err = _verify_stderr(target)
        if partials and not all(f'"{p.path}"' in err for p in partials):
            problems.append("cassette verify did not name the incomplete sibling")
        if before is not None and code != 0:
            problems.append("the committed cassette no longer verifies")
        return "target untouched, partial named", problems
    found, refusal = _labels_in(target)
    if refusal is not None or found != set(labels):
        problems.append("the target holds an incomplete recording")
    return "target is the complete recording", problems


def _same(left: str, right: Path) -> bool:
    try:
        return os.path.samefile(left, right)
    except OSError:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50, help="kills per write mode (default 50)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workers", type=int, default=3, help="calls in flight per child")
    parser.add_argument("--calls", type=int, default=30, help="most calls one child records")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child is not None:
        spec = json.loads(arguments.child)
        asyncio.run(
            _record(spec["path"], spec["mode"], spec["labels"], spec["workers"], spec["seed"])
        )
        return 0
    seed = arguments.seed if arguments.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    print(f"seed {seed}, {arguments.runs} run(s) per mode, {arguments.workers} call(s) in flight")
    failures = 0
    with tempfile.TemporaryDirectory(prefix="kill-recording-") as scratch:
        for mode in MODES:
            outcomes: Counter[str] = Counter()
            kills = reported = 0
            for index in range(arguments.runs):
                folder = Path(scratch) / f"{mode}-{index}"
                folder.mkdir()
                target, before = _prepare(folder, mode)
                labels = [f"call{index}x{n}" for n in range(rng.randint(1, arguments.calls))]
                seen = _run_child(target, mode, labels, arguments.workers, rng)
                kills += seen.killed
                reported += sum(1 for line in seen.lines if line not in {"open", "committed"})
                outcome, problems = _check(target, mode, before, labels, seen)
                outcomes[outcome] += 1
                for problem in problems:
                    failures += 1
                    print(f"FAIL {mode} run {index}: {problem}")
            detail = ", ".join(f"{count} {name}" for name, count in sorted(outcomes.items()))
            print(
                f"{mode}: {arguments.runs} run(s), {kills} SIGKILLed, {reported} call(s) "
                f"reported persisted; {detail}"
            )
    print(f"{failures} failed check(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
