"""The workspace holds the five members of design.md, each importable and typed."""

import ast
import importlib
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
MEMBERS = ["canonical", "format", "topology", "provider", "cli"]


@pytest.mark.parametrize("member", MEMBERS)
def test_member_is_a_typed_src_layout_package(member: str) -> None:
    base = ROOT / "packages" / f"cassette-{member}"
    meta = tomllib.loads((base / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["name"] == f"cassette-{member}"
    assert (base / "src" / f"cassette_{member}" / "py.typed").is_file()
    assert (base / "README.md").is_file()
    module = importlib.import_module(f"cassette_{member}")
    assert module.__name__ == f"cassette_{member}"


def test_dependency_arrows_point_down_the_dag() -> None:
    order = [f"cassette-{m}" for m in MEMBERS]
    for index, name in enumerate(order):
        meta = tomllib.loads((ROOT / "packages" / name / "pyproject.toml").read_text("utf-8"))
        deps = {
            d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].strip()
            for d in meta["project"]["dependencies"]
        }
        internal = {d for d in deps if d.startswith("cassette-")}
        assert internal <= set(order[:index]), (name, internal)


# --- Every import a package makes is one its pyproject declares (issue 15) -------------------

#: Rooms only a host loads: the pytest plugin runs inside pytest (its pytest11 entry point).
ROOM_EXTRAS = {"cassette_provider.pytest": "pytest"}


def _distribution(requirement: str) -> str:
    """The normalized distribution name of a requirement string (PEP 503)."""
    name = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert name is not None, requirement
    return re.sub(r"[-_.]+", "-", name.group()).lower()


def _catches_import_error(node: ast.Try) -> bool:
    """Whether a `try` falls back when a module is missing (a soft, optional import)."""
    names = {"ImportError", "ModuleNotFoundError"}
    for handler in node.handlers:
        caught = handler.type
        kinds = caught.elts if isinstance(caught, ast.Tuple) else [caught]
        if any(isinstance(kind, ast.Name) and kind.id in names for kind in kinds):
            return True
    return False


def _imports(tree: ast.Module) -> list[tuple[str, str, int]]:
    """(top-level module, context, line) of every absolute import and `require_extra` call.

    Context is "typing" under `if TYPE_CHECKING:`, "soft" inside a `try` that falls back on
    ImportError, "extra:<module>:<extra>" for `require_extra`, else "runtime". Walked with an
    explicit stack.
    """
    found: list[tuple[str, str, int]] = []
    stack: list[tuple[ast.AST, str]] = [(tree, "runtime")]
    while stack:
        node, context = stack.pop()
        if isinstance(node, ast.Import):
            found.extend(
                (alias.name.partition(".")[0], context, node.lineno) for alias in node.names
            )
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.module.partition(".")[0], context, node.lineno))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "require_extra":
            literals = [arg.value if isinstance(arg, ast.Constant) else "" for arg in node.args]
            module, extra = str(literals[0]), str(literals[2]) if len(literals) > 2 else ""
            found.append((module.partition(".")[0], f"extra:{extra}", node.lineno))
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            stack.extend((child, "typing") for child in node.body)
            stack.extend((child, context) for child in node.orelse)
        elif isinstance(node, ast.Try) and _catches_import_error(node):
            stack.extend((child, "soft") for child in node.body)
            stack.extend((child, context) for child in [*node.handlers, *node.orelse])
            stack.extend((child, context) for child in node.finalbody)
        else:
            stack.extend((child, context) for child in ast.iter_child_nodes(node))
    return found


def _provider_extras() -> dict[str, str]:
    """cassette-provider's EXTRAS: the extra that brings each optional top-level module."""
    from cassette_provider.extras import EXTRAS

    return dict(EXTRAS)


@pytest.mark.parametrize("member", MEMBERS)
def test_every_import_is_declared(member: str) -> None:
    """A third-party or sibling import names a dependency, or the extra that guards it.

    Runtime imports need a dependency (or the extra of a host-loaded room, ROOM_EXTRAS);
    `require_extra` needs its extra to list the module's distribution; typing-only imports
    need a dependency or some extra. A soft import (a `try` that falls back when the module
    is missing, as the plugin does for pytest-asyncio) requires nothing, so it is not checked.
    """
    base = ROOT / "packages" / f"cassette-{member}"
    project = tomllib.loads((base / "pyproject.toml").read_text("utf-8"))["project"]
    dependencies = {_distribution(d) for d in project["dependencies"]}
    extras = {
        extra: {_distribution(r) for r in requirements}
        for extra, requirements in project.get("optional-dependencies", {}).items()
    }
    anywhere = dependencies.union(*extras.values())
    owners = importlib.metadata.packages_distributions()
    own = f"cassette_{member}"
    problems: list[str] = []
    for path in sorted((base / "src" / own).rglob("*.py")):
        dotted = ".".join(path.relative_to(base / "src").with_suffix("").parts)
        room = next((e for room, e in ROOM_EXTRAS.items() if dotted.startswith(room)), None)
        for top, context, line in _imports(ast.parse(path.read_text("utf-8"))):
            if top in sys.stdlib_module_names or top in {own, "__future__"}:
                continue
            dists = (
                {top.replace("_", "-")}
                if top.startswith("cassette_")
                else {_distribution(d) for d in owners.get(top, [top])}
            )
            where = f"{path.relative_to(ROOT)}:{line} imports {top}"
            if context.startswith("extra:"):
                extra = context.removeprefix("extra:") or _provider_extras().get(top, top)
                if not dists & extras.get(extra, set()):
                    problems.append(f"{where} for extra {extra!r}, which does not list it")
            elif context == "runtime":
                allowed = dependencies | (extras.get(room, set()) if room else set())
                if not dists & allowed:
                    problems.append(f"{where}, not a dependency")
            elif context == "typing" and not dists & anywhere:
                problems.append(f"{where} for typing, declared nowhere")
    assert problems == []


# --- Each package is released on its own (issue 15) ------------------------------------------


def _project(name: str) -> dict[str, Any]:
    """The [project] table of a member's pyproject.toml."""
    text = (ROOT / "packages" / name / "pyproject.toml").read_text("utf-8")
    project: dict[str, Any] = tomllib.loads(text)["project"]
    return project


@pytest.mark.parametrize("member", MEMBERS)
def test_each_sibling_range_admits_the_sibling_s_version(member: str) -> None:
    """A release of one member must not leave another depending on a range that excludes it."""
    for requirement in _project(f"cassette-{member}")["dependencies"]:
        parsed = Requirement(requirement)
        if parsed.name.startswith("cassette-"):
            version = _project(parsed.name)["version"]
            assert parsed.specifier.contains(version), (member, requirement, version)


@pytest.mark.parametrize("member", MEMBERS)
def test_the_changelog_s_latest_release_is_the_package_version(member: str) -> None:
    """`## [x.y.z]` below `## [Unreleased]` names the version the pyproject declares."""
    base = ROOT / "packages" / f"cassette-{member}"
    changelog = (base / "CHANGELOG.md").read_text("utf-8")
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, flags=re.MULTILINE)
    assert released, f"{member}: no released version in CHANGELOG.md"
    assert released[0] == _project(f"cassette-{member}")["version"]
    assert changelog.index("## [Unreleased]") < changelog.index(f"## [{released[0]}]")
