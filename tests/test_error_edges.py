"""One error edge per package (issues 23, 24): a frozen value in the core, exceptions at one module.

Each package listed here fails in its core with one frozen dataclass value carrying a stable
`code`; exactly one module of the package (its edge) defines the `CassetteError` subclasses
users catch and builds them. The walk reads the source (AST), so a class or a constructor call
anywhere else in the package fails the test.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: package source folder -> (its one error edge module, its frozen core value "module:Name").
EDGES = {
    "cassette-canonical/src/cassette_canonical": (
        "errors.py",
        "cassette_canonical.errors:CanonicalError",
    ),
    "cassette-format/src/cassette_format": ("errors.py", "cassette_format.problem:FormatProblem"),
    "cassette-topology/src/cassette_topology": (
        "exceptions.py",
        "cassette_topology.errors:TopologyError",
    ),
    "cassette-provider/src/cassette_provider": (
        "contract/errors.py",
        "cassette_provider.contract.errors:ProviderProblem",
    ),
}
_BASE = "CassetteError"


def _sources(folder: str) -> dict[str, ast.Module]:
    base = ROOT / "packages" / folder
    return {
        path.relative_to(base).as_posix(): ast.parse(path.read_text("utf-8"))
        for path in sorted(base.rglob("*.py"))
    }


def _error_classes(trees: list[ast.Module]) -> set[str]:
    """Names of every class in `trees` deriving, by name, from CassetteError."""
    bases: dict[str, set[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                named = {
                    b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases
                }
                bases.setdefault(node.name, set()).update(named)
    found = {_BASE}
    grew = True
    while grew:
        grew = False
        for name, parents in bases.items():
            if name not in found and parents & found:
                found.add(name)
                grew = True
    return found


ERROR_CLASSES = _error_classes(
    [ast.parse(path.read_text("utf-8")) for path in ROOT.glob("packages/*/src/**/*.py")]
)


def _called_name(node: ast.Call) -> str | None:
    callee = node.func
    if isinstance(callee, ast.Name):
        return callee.id
    if isinstance(callee, ast.Attribute):
        return callee.attr
    return None


def _naming(node: ast.AST) -> tuple[int, str | None] | None:
    """(line, exception class) of a class definition or a call, None for other nodes."""
    if isinstance(node, ast.ClassDef):
        return node.lineno, node.name
    if isinstance(node, ast.Call):
        return node.lineno, _called_name(node)
    return None


def _outside(
    sources: dict[str, ast.Module], edge: str, classes: set[str], kind: type[ast.AST]
) -> list[str]:
    """`module:line name` of each `kind` node (class or call) naming a class outside the edge."""
    return [
        f"{module}:{named[0]} {named[1]}"
        for module, tree in sources.items()
        if module != edge
        for node in ast.walk(tree)
        if isinstance(node, kind) and (named := _naming(node)) is not None and named[1] in classes
    ]


def _defined_outside(sources: dict[str, ast.Module], edge: str, classes: set[str]) -> list[str]:
    """Exception classes defined in a module other than the edge."""
    return _outside(sources, edge, classes, ast.ClassDef)


def _built_outside(sources: dict[str, ast.Module], edge: str, classes: set[str]) -> list[str]:
    """Calls of an exception class in a module other than the edge."""
    return _outside(sources, edge, classes, ast.Call)


def test_the_walk_sees_the_exception_classes() -> None:
    assert {"CassetteFormatError", "InteractionRefused", "CassetteMismatchError"} <= ERROR_CLASSES


@pytest.mark.parametrize("folder", sorted(EDGES))
def test_exception_classes_are_defined_in_the_edge_module_only(folder: str) -> None:
    assert _defined_outside(_sources(folder), EDGES[folder][0], ERROR_CLASSES) == []


@pytest.mark.parametrize("folder", sorted(EDGES))
def test_exceptions_are_built_in_the_edge_module_only(folder: str) -> None:
    """The core returns values; only the edge module calls an exception class."""
    assert _built_outside(_sources(folder), EDGES[folder][0], ERROR_CLASSES) == []


@pytest.mark.parametrize("folder", sorted(EDGES))
def test_the_core_value_is_frozen_and_carries_a_code(folder: str) -> None:
    _, value = EDGES[folder]
    module, name = value.split(":")
    kind: type = getattr(importlib.import_module(module), name)
    assert dataclasses.is_dataclass(kind)
    assert getattr(kind, "__dataclass_params__").frozen  # noqa: B009  (no public accessor)
    assert "code" in {field.name for field in dataclasses.fields(kind)}
    assert "__slots__" in vars(kind)
    assert not issubclass(kind, BaseException)


def test_the_walk_finds_a_class_and_a_call_outside_the_edge() -> None:
    """A subclass defined through another subclass is found, and so is a call to it."""
    sources = {
        "edge.py": ast.parse("class A(CassetteError):\n    pass\nraise A('m')\n"),
        "core.py": ast.parse("class B(A):\n    pass\ndef f():\n    raise x.B('m')\n"),
    }
    classes = _error_classes(list(sources.values()))
    assert classes == {"CassetteError", "A", "B"}
    assert _defined_outside(sources, "edge.py", classes) == ["core.py:1 B"]
    assert _built_outside(sources, "edge.py", classes) == ["core.py:4 B"]
    assert _built_outside(sources, "core.py", classes) == ["edge.py:3 A"]
