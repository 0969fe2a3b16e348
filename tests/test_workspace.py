"""The workspace holds the five members of design.md, each importable and typed."""

import importlib
import tomllib
from pathlib import Path

import pytest

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
