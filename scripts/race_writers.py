"""Writer exclusion under real races: N processes, one cassette, whatever its spelling (issue 12).

Each round forks N recorders that wait on a barrier and then all try to open the same cassette
through the real provider stack (`install_cassette` + `RecordConfig`). Every process passes a
second barrier after its attempt, so every attempt is made while a winner holds the file; a
winner then records a few calls, disposes, and reports the labels it recorded. Per round the
script counts the winners (more than one = two writers at once), the reported records missing
from the file (lost), and whether the file still verifies (a forked chain does not).

Rounds:
- fresh:   a new path per round, `create` mode, every process spelling it the same way;
- aliases: one existing file, `append` mode, processes spelling it as the path, a symlink to
  it and a hard link to it, in turn.

Then the SIGKILL check: a child opens the cassette, is SIGKILLed while holding it, and the
next writer on the same host must get the file (a warning names the dead holder).

  uv run --no-sync python scripts/race_writers.py [--rounds 100] [--kills 20]

Exit status 1 when any count that must be 0 is not.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import signal
import sys
import tempfile
import warnings
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Barrier
from pathlib import Path

from cassette_format import CassetteFormatError, load_cassette, verify_file
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)

CALLS_PER_WINNER = 3
_REFUSED = "cannot acquire cassette writer lock"


def _registry() -> ProviderRegistry:
    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return {
            "output": [{"type": "text", "text": f"done {request.label}"}],
            "stopReason": "completed",
        }

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    return registry


async def _record(path: str, mode: str, tag: str, after_attempt: Barrier) -> list[str]:
    """Try to open; pass the barrier either way; a winner records and returns its labels."""
    registry = _registry()
    try:
        handle = install_cassette(registry, RecordConfig(file=path, write_mode=mode))  # type: ignore[arg-type]
    except CassetteFormatError as error:
        after_attempt.wait()
        if _REFUSED not in error.message:
            raise
        return []
    after_attempt.wait()
    labels = [f"{tag}-{index}" for index in range(CALLS_PER_WINNER)]
    parent = SimpleAgent(session_id=f"root-{tag}")
    for label in labels:
        live = await registry.start(
            "cassette",
            StartRequest(prompt=[{"type": "text", "text": label}], parent=parent, label=label),
        )
        await live.result
        await live.dispose()
    await handle.dispose()
    return labels


def _contender(
    path: str, mode: str, tag: str, start: Barrier, after_attempt: Barrier, out: Connection
) -> None:
    """A forked process: race, then send 'won <labels>' or 'lost' (or 'error <type>')."""
    start.wait()
    try:
        labels = asyncio.run(_record(path, mode, tag, after_attempt))
        out.send(("won", labels) if labels else ("lost", []))
    except BaseException as error:  # reported, never silently dropped
        out.send(("error", [type(error).__name__]))
    finally:
        out.close()


@dataclass
class Tally:
    rounds: int = 0
    two_writers: int = 0
    no_writer: int = 0
    lost_records: int = 0
    forked_chains: int = 0
    errors: int = 0


def _labels_in(path: Path) -> set[str] | None:
    """Labels recorded in the file, or None when it does not verify (chain forked or torn)."""
    try:
        verify_file(path, jobs=1)
        cassette = load_cassette(path)
    except CassetteFormatError:
        return None
    labels: set[str] = set()
    for item in cassette.interactions:
        label = getattr(item.request, "metadata", None)
        if label is not None and label.label is not None:
            labels.add(label.label)
    return labels


def _round(spellings: list[str], target: Path, mode: str, tag: str, tally: Tally) -> None:
    context = multiprocessing.get_context("fork")
    count = len(spellings)
    start, after_attempt = context.Barrier(count), context.Barrier(count)
    pipes = [context.Pipe(duplex=False) for _ in spellings]
    children = [
        context.Process(
            target=_contender,
            args=(spelling, mode, f"{tag}-p{index}", start, after_attempt, sender),
        )
        for index, (spelling, (_receiver, sender)) in enumerate(zip(spellings, pipes, strict=True))
    ]
    for child in children:
        child.start()
    outcomes = [receiver.recv() for receiver, _sender in pipes]
    for child in children:
        child.join()
    tally.rounds += 1
    winners = [labels for verdict, labels in outcomes if verdict == "won"]
    tally.errors += sum(1 for verdict, _labels in outcomes if verdict == "error")
    tally.two_writers += len(winners) > 1
    tally.no_writer += not winners
    present = _labels_in(target)
    if present is None:
        tally.forked_chains += 1
        return
    tally.lost_records += sum(1 for labels in winners for label in labels if label not in present)


def _fresh_rounds(directory: Path, processes: int, rounds: int) -> Tally:
    tally = Tally()
    for number in range(rounds):
        target = directory / f"fresh-{processes}-{number}.cassette.jsonl"
        _round([str(target)] * processes, target, "create", f"f{processes}r{number}", tally)
    return tally


def _alias_rounds(directory: Path, processes: int, rounds: int) -> Tally:
    target = directory / f"aliased-{processes}.cassette.jsonl"
    asyncio.run(_seed(target))
    symlink = directory / f"symlink-{processes}.cassette.jsonl"
    hardlink = directory / f"hardlink-{processes}.cassette.jsonl"
    symlink.symlink_to(target)
    os.link(target, hardlink)
    names = [str(target), str(symlink), str(hardlink)]
    spellings = [names[index % len(names)] for index in range(processes)]
    tally = Tally()
    for number in range(rounds):
        _round(spellings, target, "append", f"a{processes}r{number}", tally)
    return tally


async def _seed(target: Path) -> None:
    """One committed call, so the alias rounds append to a file that exists."""
    registry = _registry()
    async with install_cassette(registry, RecordConfig(file=str(target), write_mode="create")):
        live = await registry.start(
            "cassette",
            StartRequest(
                prompt=[{"type": "text", "text": "seed"}], parent=SimpleAgent(), label="seed"
            ),
        )
        await live.result
        await live.dispose()


def _hold_until_killed(path: str, ready: Connection) -> None:
    """Open the cassette for appending, say so, then block until SIGKILLed."""
    install_cassette(_registry(), RecordConfig(file=path, write_mode="append"))
    ready.send("holding")
    signal.pause()


def _kill_rounds(directory: Path, kills: int) -> tuple[int, int]:
    """(next writer got the file, it was refused) after SIGKILLing a holder, `kills` times."""
    target = directory / "killed-holder.cassette.jsonl"
    asyncio.run(_seed(target))
    context = multiprocessing.get_context("fork")
    recovered = refused = 0
    for _ in range(kills):
        receiver, sender = context.Pipe(duplex=False)
        holder = context.Process(target=_hold_until_killed, args=(str(target), sender))
        holder.start()
        receiver.recv()
        os.kill(holder.pid or 0, signal.SIGKILL)
        holder.join()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the warning naming the dead holder is expected
            try:
                handle = install_cassette(
                    _registry(), RecordConfig(file=str(target), write_mode="append")
                )
            except CassetteFormatError:
                refused += 1
                continue
        asyncio.run(handle.dispose())
        recovered += 1
    return recovered, refused


def _line(kind: str, processes: int, tally: Tally) -> str:
    return (
        f"{kind:8} N={processes}: {tally.rounds} rounds, {tally.two_writers} with two writers, "
        f"{tally.no_writer} with none, {tally.lost_records} lost record(s), "
        f"{tally.forked_chains} forked chain(s), {tally.errors} error(s)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--processes", type=int, nargs="+", default=[2, 4, 8])
    arguments = parser.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        for processes in arguments.processes:
            for kind, run in (("fresh", _fresh_rounds), ("aliases", _alias_rounds)):
                tally = run(directory, processes, arguments.rounds)
                print(_line(kind, processes, tally), flush=True)
                bad += tally.two_writers + tally.no_writer + tally.lost_records
                bad += tally.forked_chains + tally.errors
        recovered, refused = _kill_rounds(directory, arguments.kills)
        print(f"SIGKILLed holder: next writer got the file {recovered} time(s), refused {refused}")
        bad += refused
    print("OK: 0 rounds with two writers, 0 lost records, 0 forked chains" if bad == 0 else "FAIL")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
