"""Each error code string is written once in the workspace's source (issue 24).

A code is written where a constant is defined for it (`NAME = "NAME"`, `..._CODE = "..."`, a
class's `code = "..."`), where an error is built with a literal code (`SomeError(..., "CODE")`,
`code="CODE"`), or where a caught error's code is compared with a literal. Everything else
names the one constant, so a code can never drift between two spellings. Export tables
(`__all__`, lazy-export maps) hold names, not codes, and are not counted.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_CODE = re.compile(r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$|^[A-Z]{4,}$")


def _literal(node: ast.AST | None) -> str | None:
    """The value of an error-code-shaped string literal, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and _CODE.match(node.value):
        return node.value
    return None


def _is_code_read(node: ast.AST) -> bool:
    """`x.code`, or `getattr(x, "code", ...)`."""
    if isinstance(node, ast.Attribute):
        return node.attr == "code"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "getattr"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and node.args[1].value == "code"
    )


def _written_codes(tree: ast.Module) -> list[tuple[str, int]]:
    """(code, line) of every place this module writes an error code as a literal."""
    found: list[tuple[str, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = _literal(node.value)
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else None
                if value and name and (name in {value, "code"} or name.endswith("_CODE")):
                    found.append((value, node.lineno))
        elif isinstance(node, ast.Call):
            callee = node.func
            called = callee.id if isinstance(callee, ast.Name) else getattr(callee, "attr", "")
            if called.endswith("Error"):
                found.extend((v, node.lineno) for v in map(_literal, node.args) if v)
            found.extend(
                (v, node.lineno)
                for keyword in node.keywords
                if keyword.arg == "code" and (v := _literal(keyword.value))
            )
        elif isinstance(node, ast.Compare) and _is_code_read(node.left):
            found.extend((v, node.lineno) for v in map(_literal, node.comparators) if v)
    return found


def _workspace_codes() -> dict[str, list[str]]:
    places: dict[str, list[str]] = defaultdict(list)
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")):
        for code, line in _written_codes(ast.parse(path.read_text("utf-8"))):
            places[code].append(f"{path.relative_to(ROOT)}:{line}")
    return places


def test_each_error_code_is_written_once() -> None:
    written = _workspace_codes()
    assert "CASSETTE_MISMATCH" in written  # the walk does see the codes
    assert {code: places for code, places in written.items() if len(places) > 1} == {}


def test_the_walk_finds_every_way_of_writing_a_code() -> None:
    """Definitions, literal codes in constructors and in comparisons are all counted."""
    source = (
        'INVALID_CONFIG: Final = "INVALID_CONFIG"\n'
        'FORMAT_CODE = "CASSETTE_FORMAT"\n'
        'class E(Exception):\n    code = "ABORTED"\n'
        'raise CassetteError("bad", "NO_UPSTREAM")\n'
        'raise Other(code="DISPOSE_TIMEOUT")\n'
        'if getattr(error, "code", None) == "NO_PROVIDER": pass\n'
        'if error.code != "CASSETTE_EMPTY": pass\n'
        '__all__ = ["INVALID_CONFIG"]\n'
        'print("NOT_A_CODE_USE")\n'
    )
    codes = [code for code, _ in _written_codes(ast.parse(source))]
    assert codes.count("INVALID_CONFIG") == 1
    assert set(codes) == {
        "INVALID_CONFIG",
        "CASSETTE_FORMAT",
        "ABORTED",
        "NO_UPSTREAM",
        "DISPOSE_TIMEOUT",
        "NO_PROVIDER",
        "CASSETTE_EMPTY",
    }
