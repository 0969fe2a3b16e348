"""No import circle inside any package (issue 23): the modules' imports form a DAG.

Every import counts, wherever it stands: module level, under `if TYPE_CHECKING:` and inside a
function (a function-local import does not hide a circle). An import names the deepest module
of the package it reaches (`from a.b import c` reaches `a.b.c` when that is a module).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted(path.parent for path in ROOT.glob("packages/*/src/*/__init__.py"))


def _module_names(source: Path) -> dict[str, Path]:
    """Dotted name -> file of every module of the package rooted at `source`."""
    found: dict[str, Path] = {}
    for path in sorted(source.rglob("*.py")):
        parts = path.relative_to(source.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _reached(modules: dict[str, Path], names: list[str]) -> set[str]:
    """The package's modules among dotted `names` (each cut back to its deepest module)."""
    reached = set()
    for name in names:
        parts = name.split(".")
        while parts and ".".join(parts) not in modules:
            parts.pop()
        if parts:
            reached.add(".".join(parts))
    return reached


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (itself left out)."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: list[str] = []
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                targets.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets.append(node.module)
                targets.extend(f"{node.module}.{alias.name}" for alias in node.names)
        graph[name] = _reached(modules, targets) - {name}
    return graph


def first_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of `graph` as the path that closes it, or None (iterative depth-first)."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path: list[str] = [start]
        on_path = {start}
        pending = [iter(sorted(graph[start]))]
        while pending:
            step = next(pending[-1], None)
            if step is None:
                pending.pop()
                done.add(path[-1])
                on_path.discard(path.pop())
            elif step in on_path:
                return [*path[path.index(step) :], step]
            elif step not in done:
                path.append(step)
                on_path.add(step)
                pending.append(iter(sorted(graph[step])))
    return None


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.name)
def test_no_import_circle_inside_the_package(source: Path) -> None:
    assert first_circle(import_graph(_module_names(source))) is None


def test_the_walk_finds_a_circle_through_a_type_checking_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import thing\n")
    (package / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import c\n"
    )
    (package / "c.py").write_text("def f():\n    import pkg.a\n")
    graph = import_graph(_module_names(package))
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg", "pkg.c"},
        "pkg.c": {"pkg.a"},
    }
    assert first_circle(graph) == ["pkg.a", "pkg.b", "pkg.c", "pkg.a"]
    assert first_circle({"x": {"y"}, "y": set()}) is None
