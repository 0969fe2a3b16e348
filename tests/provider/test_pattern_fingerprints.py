"""A custom redaction pattern is stored as a fingerprint, never as its text (issue 26).

A pattern is often a literal secret, and the header is committed with the cassette. Appending
(WRITE-4) stays compatible with files whose header holds pattern text: the reference's
`valid-redacted` cassette and files written before this change.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pytest
from cassette_format import load_cassette, verify_file
from cassette_format.errors import CassetteError
from cassette_provider import (
    FunctionProvider,
    ProviderRegistry,
    RecordConfig,
    SimpleAgent,
    StartRequest,
    install_cassette,
)
from cassette_provider.live.pattern_names import pattern_fingerprint
from provider.support_provider import answer, prompt
from support.paths import INTEROP

ROOT = SimpleAgent(session_id="root")


def _literal_secret() -> str:
    """A made-up company key, built at run time so no credential-shaped literal is committed."""
    chooser = random.Random("pattern-fingerprints")
    return "acme-" + "".join(chooser.choice("abcdefghjkmnpqrstuvwxyz23456789") for _ in range(24))


async def _record(path: Path, patterns: tuple[str, ...], mode: str, label: str) -> None:
    async def run(request: StartRequest, _child: SimpleAgent) -> object:
        return answer(f"{request.label} {patterns[0] if patterns else ''}")

    registry = ProviderRegistry()
    registry.register(FunctionProvider("spawn", run))
    config = RecordConfig(
        file=str(path),
        write_mode=mode,  # type: ignore[arg-type]
        request_storage="full",
        redaction_patterns=patterns,
    )
    async with install_cassette(registry, config):
        run_ = await registry.start(
            "cassette", StartRequest(prompt=prompt(label), parent=ROOT, label=label)
        )
        try:
            await run_.result
        finally:
            await run_.dispose()


def _header(path: Path) -> dict[str, object]:
    header = json.loads(path.read_text("utf-8").splitlines()[0])
    assert isinstance(header, dict)
    return header


async def test_the_header_holds_a_fingerprint_of_a_secret_pattern(tmp_path: Path) -> None:
    secret = _literal_secret()
    path = tmp_path / "c.cassette.jsonl"
    await _record(path, (secret,), "create", "first")
    data = path.read_bytes()
    assert secret.encode() not in data  # neither the header nor the redacted result holds it
    digest = hashlib.sha256(secret.encode()).hexdigest()
    assert _header(path)["redactionPatterns"] == [f"sha256:{digest}"]
    assert pattern_fingerprint(secret) == f"sha256:{digest}"
    assert verify_file(str(path))["interactions"] == 1

    await _record(path, (secret,), "append", "second")  # the same patterns append (WRITE-4)
    assert len(load_cassette(str(path)).interactions) == 2
    with pytest.raises(CassetteError, match="redactionPatterns differs"):
        await _record(path, (secret, "other-[0-9]+"), "append", "third")


async def test_a_reference_file_holding_pattern_text_still_takes_appends(tmp_path: Path) -> None:
    """The reference stores the source; the same patterns append, and the header is kept."""
    path = tmp_path / "valid-redacted.cassette.jsonl"
    shutil.copyfile(INTEROP / "cassettes" / "valid-redacted.cassette.jsonl", path)
    header_line = path.read_text("utf-8").splitlines()[0]
    stored = _header(path)["redactionPatterns"]
    assert isinstance(stored, list)
    patterns = tuple(str(item) for item in stored)
    assert patterns == ("internal-[0-9]+",)
    before = len(load_cassette(str(path)).interactions)
    await _record(path, patterns, "append", "appended")
    assert path.read_text("utf-8").splitlines()[0] == header_line
    assert len(load_cassette(str(path)).interactions) == before + 1
    assert verify_file(str(path))["interactions"] == before + 1
