"""Where the shared corpus lives: ../shared beside the project root (CI has it there too)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
INTEROP = SHARED / "interop"
JCS_VECTORS = SHARED / "vectors" / "jcs"
