"""`inspect --tree` snapshots: the topology drawn with outcome category and duration."""

from __future__ import annotations

import io

from cassette_cli import main
from cassette_cli.terminal import Palette
from cassette_cli.tree import TreeCall, tree_lines
from support.paths import INTEROP

BASIC = str(INTEROP / "cassettes" / "valid-metadata-basic.cassette.jsonl")

BASIC_TREE = """\
root
├─ audit-eb29ac6cd35c~1  completed  266.1ms
│  └─ check-api-7d326307b9d5~1  completed  1101.3ms
├─ summarize-13f4e848a41d~1  max-tokens  1563.7ms
├─ lint-2f210bf9fb19~1  start-error  9.8ms
└─ fetch-docs-a8eff019d8f1~1  result-error  1089.4ms
"""


def inspect(*args: str) -> tuple[int, str]:
    stdout = io.StringIO()
    code = main(["inspect", *args], stdout=stdout, stderr=io.StringIO())
    return code, stdout.getvalue()


def test_tree_of_a_reference_cassette_follows_the_summary() -> None:
    code, text = inspect(BASIC, "--tree")
    lines = text.split("\n")
    assert code == 0
    assert lines[0] == "Cassette: 942c29e9-db09-4027-b262-510b60dc50e9"
    assert "\n".join(lines[7:]) == BASIC_TREE


def test_tree_is_plain_unless_colour_is_forced() -> None:
    assert "\x1b[" not in inspect(BASIC, "--tree", "--color", "auto")[1]  # a buffer is no terminal
    coloured = inspect(BASIC, "--tree", "--color=always")[1]
    assert "\x1b[32mcompleted\x1b[0m" in coloured
    assert "\x1b[31mstart-error\x1b[0m" in coloured


def test_tree_is_ignored_by_json_output() -> None:
    assert inspect(BASIC, "--tree", "--json") == inspect(BASIC, "--json")


def test_deep_and_orphaned_calls() -> None:
    depth = 3000
    calls = []
    parent = "root"
    for sequence in range(1, depth + 1):
        key = f"{parent}/a-000000000000~1"
        calls.append(TreeCall(sequence, key, parent, "completed", 1))
        parent = key
    calls.append(TreeCall(depth + 1, "root/gone~1/b~1", "root/gone~1", "aborted", 0.25))
    calls.append(TreeCall(depth + 2, "root/z\x1b~1", "root", "other", 2))
    lines = tree_lines(calls, Palette(enabled=False))
    assert len(lines) == depth + 4  # root, the chain, the orphan's placeholder, its child, z
    assert lines[1] == "├─ a-000000000000~1  completed  1.0ms"
    assert lines[-4].endswith("└─ a-000000000000~1  completed  1.0ms")
    assert lines[-4].startswith("│  " + "   " * (depth - 2))
    assert lines[-3] == "├─ z\\u{001b}~1  other  2.0ms"
    assert lines[-2] == "└─ root/gone~1  (parent not recorded)"
    assert lines[-1] == "   └─ b~1  aborted  0.3ms"


def test_calls_on_a_parent_cycle_are_still_drawn() -> None:
    calls = [
        TreeCall(1, "x/a~1", "y/b~1", "completed", 1),
        TreeCall(2, "y/b~1", "x/a~1", "completed", 2),
        TreeCall(3, "root/c~1", "root", "completed", 3),
    ]
    assert tree_lines(calls, Palette(enabled=False)) == [
        "root",
        "├─ c~1  completed  3.0ms",
        "└─ x/a~1  completed  1.0ms",
        "   └─ y/b~1  completed  2.0ms",
    ]
