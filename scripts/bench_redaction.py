"""Redaction cost: linear growth of every pattern on hostile input, and the catalogue's price.

Two measurements, both as ratios within this run (no absolute targets):

1. Growth. For each pattern (the reference's four, then every catalogued shape), the worst
   of a few hostile inputs built from its canary's prefix and character classes is timed at
   256 KiB and at 1 MiB; the ratio is about 4 for linear growth and 16 for quadratic. Floor:
   the same ratio for `str.count` over the same inputs. Target: every ratio <= 6.
2. Price. Redacting ordinary text (prose with a few credentials) with the full redactor over
   the reference's four patterns alone. Reported, not targeted.

  uv run --no-sync python scripts/bench_redaction.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import re
import time
from collections.abc import Callable
from functools import partial

from cassette_provider.live.redact import Redactor, builtin_patterns, compile_redactor
from cassette_provider.live.secret_shapes import CANARY_CLASSES, SHAPES, expand_canary

KIB = 1024
GROWTH_TARGET = 6.0


def best(function: Callable[[], object], rounds: int) -> float:
    """The fastest of `rounds` timings of `function`."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def hostile_units(template: str) -> list[str]:
    """Near-miss units for one pattern: its literal prefix, its classes, and a truncated canary."""
    prefix = template.split("{", 1)[0]
    classes = [CANARY_CLASSES[name] for name in re.findall(r"\{([A-Za-z])[0-9]+\}", template)]
    canary, _ = expand_canary(template, random.Random(template).choice)
    units = [prefix or "a", canary[: max(1, len(canary) - 1)], prefix + "-", "a-"]
    units += [alphabet[:3] for alphabet in classes[:2]]
    return [unit for unit in units if unit]


def fill(unit: str, size: int) -> str:
    """`unit` repeated to `size` characters."""
    return (unit * (size // len(unit) + 1))[:size]


def growth(pattern: re.Pattern[str], units: list[str], rounds: int) -> tuple[float, float]:
    """Worst 1 MiB / 256 KiB time ratio of the pattern, and of `str.count`, over the units."""
    worst, floor = 0.0, 0.0
    redactor = Redactor(True, (pattern,))
    for unit in units:
        small, large = fill(unit, 256 * KIB), fill(unit, 1024 * KIB)
        small_time = best(partial(redactor.redact_text, small), rounds)
        large_time = best(partial(redactor.redact_text, large), rounds)
        worst = max(worst, large_time / max(small_time, 1e-9))
        count_small = best(partial(small.count, unit + "x"), rounds)
        count_large = best(partial(large.count, unit + "x"), rounds)
        floor = max(floor, count_large / max(count_small, 1e-9))
    return worst, floor


def main() -> None:
    """Print per-pattern growth ratios and the catalogue's price on ordinary text."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds

    reference = builtin_patterns()
    rows: list[tuple[str, re.Pattern[str], list[str]]] = [
        (f"reference-{index + 1}", pattern, ["a-", "api_key ", "Bearer ", "sk-", "AKIA", "a"])
        for index, pattern in enumerate(reference)
    ]
    full = compile_redactor(True, ()).unwrap()
    catalogue = full.patterns[len(reference) :]
    rows += [
        (shape.name, pattern, hostile_units(shape.canary))
        for shape, pattern in zip(SHAPES, catalogue, strict=True)
    ]
    failures = 0
    print(f"{'pattern':34} {'1MiB/256KiB':>12} {'floor':>7}")
    for name, pattern, units in rows:
        ratio, floor = growth(pattern, units, rounds)
        failures += ratio > GROWTH_TARGET
        flag = "" if ratio <= GROWTH_TARGET else "  OVER TARGET"
        print(f"{name:34} {ratio:12.2f} {floor:7.2f}{flag}")

    rng = random.Random(1)
    words = ["the", "deploy", "finished", "with", "status", "ok", "token", "count", "=", "3"]
    prose = " ".join(rng.choice(words) for _ in range(200_000))
    secrets = " ".join(expand_canary(shape.canary, rng.choice)[0] for shape in SHAPES[:10])
    text = prose + " " + secrets
    reference_only = Redactor(True, reference)
    base = best(lambda: reference_only.redact_text(text), rounds)
    ours = best(lambda: full.redact_text(text), rounds)
    print(
        f"\nordinary text, {len(text) // KIB} KiB: reference patterns {base * 1e3:.1f} ms, "
        f"with the catalogue {ours * 1e3:.1f} ms: ratio {ours / base:.2f}"
    )
    print(f"\n{failures} pattern(s) over the growth target of {GROWTH_TARGET}")
    raise SystemExit(1 if failures else 0)


if __name__ == "__main__":
    main()
