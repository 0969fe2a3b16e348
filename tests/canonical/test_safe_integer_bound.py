"""The safe-integer bound 2^53 - 1 is declared once, in cassette_canonical.limits (FMT-7, D-1)."""

from __future__ import annotations

import ast

from cassette_canonical.limits import MAX_SAFE_INTEGER
from support.paths import ROOT

_HOME = ROOT / "packages" / "cassette-canonical" / "src" / "cassette_canonical" / "limits.py"


def _spells_the_bound(node: ast.AST) -> bool:
    """`2**53` (with or without `- 1`) or its digits, as code (comments are not code)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value in (2**53, 2**53 - 1)
    return (
        isinstance(node, ast.BinOp)
        and isinstance(node.op, ast.Pow)
        and isinstance(node.left, ast.Constant)
        and node.left.value == 2
        and isinstance(node.right, ast.Constant)
        and node.right.value == 53
    )


def test_the_bound_is_javascripts_max_safe_integer() -> None:
    assert MAX_SAFE_INTEGER == 9_007_199_254_740_991
    assert int(float(MAX_SAFE_INTEGER + 1)) == MAX_SAFE_INTEGER + 1  # n + 1 is still exact
    assert int(float(MAX_SAFE_INTEGER + 2)) != MAX_SAFE_INTEGER + 2  # n + 2 is not


def test_no_package_module_but_its_home_spells_the_bound() -> None:
    spelled = []
    for path in sorted((ROOT / "packages").glob("*/src/**/*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if path != _HOME and any(_spells_the_bound(node) for node in ast.walk(tree)):
            spelled.append(str(path.relative_to(ROOT)))
    assert spelled == []
