"""Each record member's wire name is written in at most two places of cassette-format (issue 23).

Its declaration (`records.model`, or `records.identity` for the identity members it shares
with topology's views) and the reference's message text, which lives in `rules/` (counted
as one place: the ordered checks and their messages). Every other module reads a member by
the declaration (`wire_fields`, `wire_of`, the derived decoder and checks, the constants).
A wire name "appears" in a module when a string constant other than a docstring is the name
itself (`record["promptBytes"]`), quotes it (`b'"hash":'`) or names it in a JSON path
(`"header.requestStorage must be ..."`); the same English word in prose ("cannot read
cassette") is not the member. Session logs (`sessions/`) and the tail seal sidecar
(`read/tail_seal.py`, our extension in docs/format.md) are documents of their own with members
of their own (`kind`, `count`), so they are not searched.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import cassette_format
import pytest
from cassette_format.records import model
from cassette_format.records.declare import members

_PACKAGE = Path(cassette_format.__file__).parent
_DECLARATIONS = {"records/model.py", "records/identity.py"}
_OTHER_DOCUMENTS = ("sessions/", "read/tail_seal.py")


def _declared_wire_names() -> list[str]:
    names: set[str] = set()
    for value in vars(model).values():
        if isinstance(value, type) and "__members__" in vars(value):
            names.update(item.wire for item in members(value))
    return sorted(names)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of prose and Python names: docstrings, bare strings and `__slots__` entries."""
    skipped = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__slots__" for target in node.targets
        ):
            skipped.update(id(item) for item in ast.walk(node.value))
    return skipped


def _strings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    prose = _docstrings(tree)
    texts = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and id(node) not in prose:
            if isinstance(node.value, str):
                texts.append(node.value)
            elif isinstance(node.value, bytes):
                texts.append(node.value.decode("latin-1"))
    return texts


def _place(path: Path) -> str:
    relative = path.relative_to(_PACKAGE).as_posix()
    return "rules/" if relative.startswith("rules/") else relative


_MODULES = {
    path: _strings(path)
    for path in sorted(_PACKAGE.rglob("*.py"))
    if not path.relative_to(_PACKAGE).as_posix().startswith(_OTHER_DOCUMENTS)
}


def test_the_records_declare_the_names_the_acceptance_names() -> None:
    assert {"startLatencyMs", "promptBytes", "hasPersona"} <= set(_declared_wire_names())


@pytest.mark.parametrize("wire", _declared_wire_names())
def test_a_wire_name_is_written_in_its_declaration_and_the_rules_only(wire: str) -> None:
    name = re.escape(wire)
    # A JSON path's dot follows a member or an index (`header.x`, `output[0].x`); a lone
    # leading dot is a file suffix (`.failed`), not a member.
    word = re.compile(rf"^{name}$|(?<=[A-Za-z0-9_\]])\.{name}(?![A-Za-z0-9_])|\"{name}\"|'{name}'")
    places = {
        _place(path) for path, texts in _MODULES.items() if any(word.search(text) for text in texts)
    }
    assert places & _DECLARATIONS, f"{wire} is declared nowhere"
    assert len(places) <= 2, f"{wire} is written in {sorted(places)}"
    assert places <= _DECLARATIONS | {"rules/"}, f"{wire} is written in {sorted(places)}"
