"""A package's public names, each importing its module on first use (PEP 562), written once.

cassette-format, cassette-provider and its model room use it so that `cassette verify` imports
only the streaming verifier and the pytest plugin does not pull in the recorder and model stacks.
A package names its exports per module; a module listed in `whole` exports every name of its
own `__all__`, so the package does not repeat that list (the module is imported on first miss).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TypeAlias

__all__ = ["ModuleAttribute", "ModuleDir", "lazy_exports"]

ModuleAttribute: TypeAlias = Callable[[str], object]
ModuleDir: TypeAlias = Callable[[], list[str]]


def lazy_exports(
    package: str,
    by_module: Mapping[str, Iterable[str]],
    *,
    whole: Iterable[str] = (),
) -> tuple[ModuleAttribute, ModuleDir]:
    """The `__getattr__` and `__dir__` of `package`; a resolved name is cached in the package."""
    owners = {name: module for module, names in by_module.items() for name in names}
    whole_modules = tuple(whole)

    def whole_owner(name: str) -> str | None:
        """The `whole` module whose `__all__` holds `name` (private names never look there)."""
        if name.startswith("_"):
            return None
        for module in whole_modules:
            if name in getattr(importlib.import_module(module), "__all__", ()):
                return module
        return None

    def public_names() -> list[str]:
        """Every exported name, sorted: the package's `__all__` and `dir()`."""
        names = set(owners)
        for module in whole_modules:
            names.update(getattr(importlib.import_module(module), "__all__", ()))
        return sorted(names)

    def attribute(name: str) -> object:
        """Import the module that defines `name` and cache the value on the package."""
        if name == "__all__":
            value: object = public_names()
        else:
            module = owners.get(name) or whole_owner(name)
            if module is None:
                raise AttributeError(f"module {package!r} has no attribute {name!r}")
            value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    return attribute, public_names
