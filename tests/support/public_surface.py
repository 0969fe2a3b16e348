"""A lazy package's two views of its public surface: what type checkers see and what runs.

The `TYPE_CHECKING` imports of a package `__init__` (read with ast: `name as name`, or `*` for
every name of that module's `__all__`) must be exactly the names its lazy `__getattr__` serves.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path
from types import ModuleType

import pytest


def _type_checking_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    """The `from ... import ...` statements directly under `if TYPE_CHECKING:`."""
    blocks = [
        node.body
        for node in tree.body
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
        if node.test.id == "TYPE_CHECKING"
    ]
    return [node for body in blocks for node in body if isinstance(node, ast.ImportFrom)]


def typed_surface(package: ModuleType) -> dict[str, str]:
    """Each name type checkers see as exported by `package`, with the module defining it."""
    assert package.__file__ is not None
    tree = ast.parse(Path(package.__file__).read_text(encoding="utf-8"))
    surface: dict[str, str] = {}
    for node in _type_checking_imports(tree):
        assert node.module is not None
        for alias in node.names:
            if alias.name == "*":
                names = importlib.import_module(node.module).__all__
                surface.update(dict.fromkeys(names, node.module))
            else:
                assert alias.asname == alias.name, f"{alias.name} is not re-exported as itself"
                surface[alias.name] = node.module
    return surface


def assert_surface_is_served(package: ModuleType) -> None:
    """The typed names are the package's `__all__` and `dir()`, each its module's own object."""
    surface = typed_surface(package)
    assert sorted(surface) == package.__all__ == dir(package)
    for name, module in surface.items():
        assert getattr(package, name) is getattr(importlib.import_module(module), name), name


def assert_unknown_name_is_refused(package: ModuleType, name: str) -> None:
    """A name outside the surface is an AttributeError naming the package, as for any module."""
    expected = f"module {package.__name__!r} has no attribute {name!r}"
    with pytest.raises(AttributeError, match=f"^{re.escape(expected)}$"):
        getattr(package, name)
