"""`cassette demo`: record a small multi-agent run, replay it offline, verify, inspect and diff.

The children are in-process `FunctionProvider` functions, so there is no network and no API
key. What the demo prints about results is metadata (labels, stop reasons, error names) and
whether each replayed outcome equals the recorded one; never the bodies.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from cassette_cli.arguments import DemoCommand, DiffCommand, InspectCommand
from cassette_cli.display import display
from cassette_cli.terminal import Output, Palette, palette_for

if TYPE_CHECKING:
    from cassette_provider import FunctionProvider, ProviderRegistry, SimpleAgent, StartRequest

__all__ = ["run_demo"]


@dataclass(frozen=True, slots=True)
class _Child:
    """One child of the demo's root: its label, simulated latency and what it does."""

    label: str
    latency_s: float
    answer: str
    fails: bool = False
    grandchild: str | None = None


#: Started in this order; they finish in another (their latencies differ).
_CHILDREN: Final = (
    _Child("research", 0.08, "Three sources agree on the API shape."),
    _Child(
        "review", 0.03, "The patch is fine once the fact check passes.", grandchild="fact-check"
    ),
    _Child("deploy", 0.05, "", fails=True),
)
#: The second recording: research answers differently and one more child is started.
_VARIANT: Final = (
    _Child("research", 0.08, "Two sources agree; the third is outdated."),
    _CHILDREN[1],
    _CHILDREN[2],
    _Child("summarize", 0.01, "Summary for the changelog."),
)


class DemoDeployError(RuntimeError):
    """The failure the `deploy` child raises after publication (recorded as result-error)."""


def _text_result(text: str) -> dict[str, object]:
    return {"output": [{"type": "text", "text": text}], "stopReason": "completed"}


def _prompt(text: str) -> list[dict[str, object]]:
    return [{"type": "text", "text": text}]


@dataclass(slots=True)
class _Observed:
    """What one child run produced: its result, or the error's class name."""

    label: str
    result: Mapping[str, object] | None = None
    error_name: str | None = None


@dataclass(slots=True)
class _Recording:
    """Outcomes and completion order of one recorded run."""

    observed: dict[str, _Observed] = field(default_factory=dict)
    completion_order: list[str] = field(default_factory=list)
    #: Replay only: labels of calls covered by a delivered parent (not re-run), and that parent.
    covered: list[tuple[str, str]] = field(default_factory=list)


def _upstream(children: Sequence[_Child], registry: ProviderRegistry) -> FunctionProvider:
    """The `spawn` provider: each child sleeps its latency, answers, fails or delegates."""
    from cassette_provider import FunctionProvider, StartRequest

    by_label = {child.label: child for child in children}

    async def run(request: StartRequest, child_agent: SimpleAgent) -> dict[str, object]:
        child = by_label.get(request.label or "")
        if child is None:  # the grandchild
            await asyncio.sleep(0.01)
            return _text_result("Fact check passed.")
        await asyncio.sleep(child.latency_s)
        if child.fails:
            raise DemoDeployError("deploy target unreachable")
        if child.grandchild is not None:
            nested = await registry.start(
                "cassette",
                StartRequest(
                    prompt=_prompt("Check the facts in the review."),
                    parent=child_agent,
                    label=child.grandchild,
                ),
            )
            try:
                await nested.result
            finally:
                await nested.dispose()
        return _text_result(child.answer)

    return FunctionProvider("spawn", run)


async def _start_all(
    registry: ProviderRegistry, root: SimpleAgent, children: Sequence[_Child]
) -> _Recording:
    """Start the children concurrently in the given order and collect their outcomes."""
    from cassette_provider import StartRequest

    recording = _Recording()

    async def one(child: _Child) -> None:
        observed = _Observed(child.label)
        run = await registry.start(
            "cassette",
            StartRequest(
                prompt=_prompt(f"Task for {child.label}."), parent=root, label=child.label
            ),
        )
        try:
            observed.result = await run.result
        except Exception as error:  # the failing child: keep only its class name
            observed.error_name = getattr(error, "recorded_name", None) or type(error).__name__
        finally:
            await run.dispose()
        recording.observed[child.label] = observed
        recording.completion_order.append(child.label)

    await asyncio.gather(*(one(child) for child in children))
    return recording


async def _record(path: Path, children: Sequence[_Child]) -> _Recording:
    from cassette_provider import ProviderRegistry, RecordConfig, SimpleAgent, install_cassette

    registry = ProviderRegistry()
    registry.register(_upstream(children, registry))
    handle = install_cassette(registry, RecordConfig(file=str(path)))
    try:
        return await _start_all(registry, SimpleAgent(session_id="demo-root"), children)
    finally:
        await handle.dispose()


def _labels_by_call_key(path: Path) -> dict[str, str | None]:
    """Each recorded call's label (request metadata), by call key."""
    from cassette_format import load_cassette
    from cassette_topology import stored_request_metadata

    return {
        item.call_key: stored_request_metadata(item.request).label
        for item in load_cassette(path).interactions
    }


async def _replay(path: Path, children: Sequence[_Child]) -> _Recording:
    from cassette_provider import ProviderRegistry, ReplayConfig, SimpleAgent, install_cassette

    registry = ProviderRegistry()  # no upstream at all: replay never calls one
    # Default settings: dispose checks that every interaction was used. The grandchild is not
    # re-run (replay returns the child's recorded result), so its interaction is covered.
    handle = install_cassette(registry, ReplayConfig(file=str(path)))
    try:
        root = SimpleAgent(session_id="a-different-root-session")
        replayed = await _start_all(registry, root, list(reversed(children)))
        tally = handle.replay_tally()
        if tally is not None:
            labels = _labels_by_call_key(path)
            replayed.covered = [
                (call.label or "?", labels.get(call.parent_key) or "?") for call in tally.covered
            ]
        return replayed
    finally:
        await handle.dispose()


@dataclass(frozen=True, slots=True)
class _Narrator:
    """Prints the demo's steps: a numbered title, then indented detail lines."""

    output: Output
    palette: Palette

    def step(self, number: int, title: str) -> None:
        self.output.out("")
        self.output.out(self.palette.paint(f"{number}. {title}", "bold"))

    def say(self, line: str) -> None:
        self.output.out(f"   {line}")

    def run(self, argv: Sequence[str], runner: Callable[[Output], int]) -> int:
        """Run a command into buffers, then print its output indented under the step."""
        self.output.out(self.palette.paint("   $ cassette " + " ".join(argv), "dim"))
        stdout, stderr = io.StringIO(), io.StringIO()
        code = runner(Output(stdout, stderr))
        for line in stdout.getvalue().splitlines():
            self.output.out(f"     {line}")
        for line in stderr.getvalue().splitlines():
            self.output.err(f"     {line}")
        return code


def _describe(observed: _Observed) -> str:
    if observed.error_name is not None:
        return f"failed with {observed.error_name}"
    stop = (observed.result or {}).get("stopReason")
    return f"{stop if isinstance(stop, str) else 'result'}"


async def _scenario(directory: Path, narrator: _Narrator) -> bool:
    from cassette_cli.commands import run_diff, run_inspect, run_verify_file

    palette = narrator.palette
    recorded_path = directory / "recorded.cassette.jsonl"
    variant_path = directory / "variant.cassette.jsonl"

    narrator.step(1, "Record: a root starts three children at once (one nests, one fails)")
    recorded = await _record(recorded_path, _CHILDREN)
    for label in recorded.completion_order:
        observed = recorded.observed[label]
        nested = " (after its own child fact-check)" if label == "review" else ""
        narrator.say(f"{label:<9} {_describe(observed)}{nested}")
    narrator.say(
        f"started {', '.join(c.label for c in _CHILDREN)}; "
        f"finished {', '.join(recorded.completion_order)}"
    )
    narrator.say(f"written to {display(str(recorded_path))}")

    narrator.step(2, "Replay offline: no upstream, a new root id, siblings started in reverse")
    replayed = await _replay(recorded_path, _CHILDREN)
    all_match = True
    for child in reversed(_CHILDREN):
        before, after = recorded.observed[child.label], replayed.observed[child.label]
        same = (before.result, before.error_name) == (after.result, after.error_name)
        all_match = all_match and same
        verdict = (
            palette.paint("its own recorded outcome", "good")
            if same
            else palette.paint("a DIFFERENT outcome", "bad")
        )
        narrator.say(f"{child.label:<10} {_describe(after)}: {verdict}")
    for label, parent in replayed.covered:
        narrator.say(f"{label:<10} covered: inside {parent}'s recorded result, not re-run")
    expected_covered = [(c.grandchild, c.label) for c in _CHILDREN if c.grandchild is not None]
    all_match = all_match and replayed.covered == expected_covered
    narrator.say("matched by parent path + parent context + request, not by completion order")
    narrator.say("every recorded interaction was used: replayed, or covered by its parent")

    narrator.step(3, "Verify the hash chain")
    verified = narrator.run(
        ["verify", str(recorded_path)],
        lambda out: run_verify_file(str(recorded_path), as_json=False, output=out),
    )

    narrator.step(4, "Inspect the topology (metadata only, never prompts or results)")
    tree = InspectCommand(
        str(recorded_path), False, False, True, "always" if palette.enabled else "never"
    )
    inspected = narrator.run(
        ["inspect", str(recorded_path), "--tree"], lambda out: run_inspect(tree, out)
    )

    narrator.step(5, "Re-record with research answering differently and one more child; diff")
    await _record(variant_path, _VARIANT)
    diff_code = narrator.run(
        ["diff", str(recorded_path), str(variant_path), "--show-calls"],
        lambda out: run_diff(DiffCommand(str(recorded_path), str(variant_path), False, True), out),
    )
    narrator.say(
        f"exit code {diff_code}: the recordings differ, as intended "
        "(research's answer changed, summarize is new; timing is informational)"
    )
    return all_match and verified == 0 and inspected == 0 and diff_code == 2


def run_demo(command: DemoCommand, output: Output) -> int:
    """Run the demo; exit 0 when every step behaved as expected."""
    palette = palette_for(command.color, output.stdout)
    narrator = _Narrator(output, palette)
    keep = command.directory is not None
    directory = Path(command.directory or tempfile.mkdtemp(prefix="cassette-demo-"))
    started = time.perf_counter()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for stale in ("recorded.cassette.jsonl", "variant.cassette.jsonl"):
            (directory / stale).unlink(missing_ok=True)
        output.out(palette.paint("cassette demo: record and replay subagent calls offline", "bold"))
        succeeded = asyncio.run(_scenario(directory, narrator))
    except BrokenPipeError:
        raise  # the reader went away; the console edge handles it
    except Exception as error:  # the CLI edge: report, never a traceback
        output.err(display(f"demo failed: {type(error).__name__}: {error}"))
        return 1
    finally:
        if not keep:
            shutil.rmtree(directory, ignore_errors=True)
    output.out("")
    seconds = time.perf_counter() - started
    if succeeded:
        where = f"; cassettes kept in {display(str(directory))}" if keep else ""
        output.out(
            palette.paint(f"Done in {seconds:.1f} s: every call got its own outcome{where}", "good")
        )
        return 0
    output.out(palette.paint("The demo did not behave as expected (see above).", "bad"))
    return 1
