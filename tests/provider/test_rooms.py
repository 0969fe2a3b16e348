"""Inside cassette-provider imports run only downward, and none hides inside a function (issue 24).

The rooms, bottom to top, are declared once here; a room may import its own modules and any
lower room, never a higher one nor a sibling on its floor. `if TYPE_CHECKING:` imports count
(they still tie the rooms). A function-local import is allowed only where the package loads an
optional extra: the pytest11 entry point, which pytest loads in every run and which must import
nothing of the stack until a fixture asks (tests/plugin/test_plugin_import.py).
"""

from __future__ import annotations

import ast
from pathlib import Path

import cassette_provider

PACKAGE = Path(cassette_provider.__file__).resolve().parent

#: Floors from the ground up; the rooms that share a floor never import each other.
FLOORS: tuple[frozenset[str], ...] = (
    frozenset({"extras.py", "contract"}),
    frozenset({"live"}),
    frozenset({"models", "adapters"}),
    frozenset({"record", "replay"}),
    frozenset({"install.py"}),
    frozenset({"episodes.py"}),
    frozenset({"refresh.py"}),
    frozenset({"pytest"}),
    frozenset({"__init__.py"}),
)

#: Modules that load an optional extra on first use: the pytest extra's entry point and the
#: eager module it registers at configure time (`summary`, whose end-of-run lines load the
#: report texts only when a run used a cassette), and the model_sessions fixture (httpx).
EXTRAS_LOADERS = frozenset({"pytest/plugin.py", "pytest/summary.py", "pytest/model_fixture.py"})


def _room(relative: Path) -> str:
    """The room of a module: its first folder, or the file itself at the package top."""
    return relative.parts[0]


def _floor(room: str) -> int:
    (floor,) = [index for index, rooms in enumerate(FLOORS) if room in rooms]
    return floor


def _target_room(module: str) -> str | None:
    """The room a `cassette_provider.…` import lands in (None: another package)."""
    parts = module.split(".")
    if parts[0] != "cassette_provider":
        return None
    if len(parts) == 1:
        return "__init__.py"
    candidate = PACKAGE / parts[1]
    return parts[1] if candidate.is_dir() else f"{parts[1]}.py"


def _imports(tree: ast.Module) -> list[tuple[str, int, bool]]:
    """(module, line, inside a function) of every absolute import, walked with a stack."""
    found: list[tuple[str, int, bool]] = []
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, local = stack.pop()
        if isinstance(node, ast.Import):
            found.extend((alias.name, node.lineno, local) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"relative import at line {node.lineno}"
            found.append((node.module or "", node.lineno, local))
        inner = local or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


def _modules() -> list[tuple[Path, ast.Module]]:
    return [
        (path.relative_to(PACKAGE), ast.parse(path.read_text("utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_every_room_has_a_floor() -> None:
    rooms = {_room(relative) for relative, _ in _modules()}
    declared = frozenset().union(*FLOORS)
    assert rooms == declared


def test_no_import_runs_up_or_sideways() -> None:
    problems: list[str] = []
    for relative, tree in _modules():
        room = _room(relative)
        for module, line, _ in _imports(tree):
            target = _target_room(module)
            if target is None or target == room:
                continue
            if _floor(target) >= _floor(room):
                problems.append(f"{relative}:{line} ({room}) imports {module} ({target})")
    assert problems == []


def test_function_local_imports_only_load_extras() -> None:
    problems = [
        f"{relative}:{line} imports {module} inside a function"
        for relative, tree in _modules()
        if relative.as_posix() not in EXTRAS_LOADERS
        for module, line, local in _imports(tree)
        if local
    ]
    assert problems == []


def test_the_walk_sees_an_upward_and_a_local_import() -> None:
    """The checks above can fail: a planted upward, function-local import is found."""
    planted = ast.parse("def f():\n    from cassette_provider.install import install_cassette\n")
    ((module, line, local),) = _imports(planted)
    assert (module, line, local) == ("cassette_provider.install", 2, True)
    assert _target_room(module) == "install.py"
    assert _floor("install.py") > _floor("record")
