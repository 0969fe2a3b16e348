"""Optional dependencies: a missing one is an ImportError naming the extra that installs it."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Final

__all__ = ["EXTRAS", "MissingExtraError", "require_extra"]

#: The distribution's extras, by the top-level module each one provides.
EXTRAS: Final = {
    "httpx": "httpx",
    "openai": "openai",
    "pydantic_ai": "pydantic-ai",
    "pydantic_core": "pydantic-ai",
    "agents": "openai-agents",
    "langgraph": "langgraph",
    "langchain_core": "langgraph",
}


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message says which extra brings it."""

    def __init__(self, module: str, extra: str, needed_by: str) -> None:
        super().__init__(
            f"{needed_by} needs the {module!r} module, which is not installed; "
            f'install it with: pip install "cassette-provider[{extra}]"',
            name=module,
        )
        self.extra = extra


def require_extra(module: str, needed_by: str, extra: str | None = None) -> ModuleType:
    """Import `module` (an optional dependency of `needed_by`), or raise MissingExtraError.

    `extra` names the extra to install when the module's usual one (EXTRAS) is not the right
    hint for this caller (pydantic_core comes with both adapters' extras).
    """
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != top:
            raise  # the extra is there but incomplete or broken: keep the real cause
        raise MissingExtraError(top, extra or EXTRAS.get(top, top), needed_by) from error
