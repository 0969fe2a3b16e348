"""The credential-shape catalogue and key redaction (issue 14; REDACT-2, REDACT-3, REDACT-5)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from unittest.mock import patch

import pytest
from cassette_format.records import RequestMetadata, ToolFilter
from cassette_provider.live import redact as redact_module
from cassette_provider.live.js_regex import JS_SPACE_CLASS
from cassette_provider.live.redact import (
    REDACTED,
    SHORTEST_BUILTIN_MATCH,
    Redactor,
    builtin_patterns,
    catalogue_patterns,
    compile_redactor,
    is_secret_key,
)
from cassette_provider.live.secret_shapes import (
    CANARY_CLASSES,
    SHAPES,
    CompiledShape,
    compiled_shapes,
    expand_canary,
)
from hypothesis import given, settings
from hypothesis import strategies as st

COMPILED = {shape.shape.name: shape for shape in compiled_shapes()}
REDACTOR = compile_redactor(True, ()).unwrap()
MIB = 1 << 20

#: The shapes issue 14 names, by catalogue name (each must stay catalogued).
ISSUE_SHAPES = (
    "aws-access-key-id",
    "aws-secret-access-key",
    "github-fine-grained-pat",
    "github-token",
    "gitlab-token",
    "slack-token",
    "slack-app-token",
    "slack-webhook-url",
    "google-api-key",
    "json-web-token",
    "pem-private-key",
    "openssh-private-key",
    "basic-auth-url",
    "azure-storage-account-key",
    "azure-sas-signature",
    "npm-token",
    "pypi-token",
    "huggingface-token",
    "sendgrid-api-key",
    "stripe-secret-key",
    "openai-api-key",
    "anthropic-api-key",
    "gcp-service-account-private-key",
    "twilio-api-key",
    "discord-bot-token",
    "telegram-bot-token",
    "heroku-api-key",
    "digitalocean-token",
    "shopify-token",
    "mailgun-api-key",
    "query-credential",
)


def canary(name: str, seed: int = 0) -> tuple[str, tuple[str, ...]]:
    """The shape's canary text and its random runs, from a seeded generator."""
    return expand_canary(COMPILED[name].shape.canary, random.Random(f"{name}/{seed}").choice)


def secret_runs(runs: tuple[str, ...]) -> list[str]:
    """The runs that are secret material (short ones, like a URL's user name, may stay)."""
    return [run for run in runs if len(run) >= 8]


def test_the_catalogue_covers_the_issue_shapes_with_unique_names() -> None:
    names = [shape.name for shape in SHAPES]
    assert len(names) == len(set(names)) >= 37
    assert set(ISSUE_SHAPES) <= set(names)
    for shape in SHAPES:
        assert all(hint == hint.lower() for hint in shape.hints), shape.name
        assert "[" not in shape.canary, shape.name


@pytest.mark.parametrize("name", sorted(COMPILED))
@pytest.mark.parametrize("seed", range(3))
def test_every_shape_catches_its_canary_in_context(name: str, seed: int) -> None:
    text, runs = canary(name, seed)
    assert COMPILED[name].pattern.search(text) is not None
    assert COMPILED[name].may_match(text.lower())
    for surrounding in ("{}", "see {} now", '{{"value": "{}"}}', "x='{}',", "<{}>\n"):
        redacted, count = REDACTOR.redact_text(surrounding.format(text))
        assert count >= 1
        assert REDACTED in redacted
        for run in secret_runs(runs):
            assert run not in redacted, (surrounding, run)


def test_near_misses_are_left_alone() -> None:
    kept = (
        "AKIA is a prefix",
        "the ASIA region",
        "ghp_short",
        "xoxb-123",
        "AIza too short",
        "eyJhbGciOiJIUzI1NiJ9 alone",
        "-----BEGIN PUBLIC KEY-----\nMFkw\n-----END PUBLIC KEY-----",
        "https://example.com/path?q=1",
        "mailto:someone@example.com",
        "key-short",
        "a tokenCount of 3",
        "sig=short",
        "sk-ant-nothing",
    )
    for text in kept:
        assert REDACTOR.redact_text(text) == (text, 0), text


def test_reference_outputs_are_unchanged_where_the_reference_redacts_fully() -> None:
    """REDACT-3: the catalogue adds nothing to what the reference's patterns fully cleaned."""
    reference = compile_redactor(True, ()).unwrap().patterns[:4]
    samples = (
        "Authorization header Bearer abcdefgh12345678XYZ",
        "key sk-canaryCANARY123456",
        "token ghp_canaryCANARY123456",
        "id AKIACANARYCANARY1234",
        "config password=hunter2canary",
        'headers {"api_key": "abcd1234", "x": 1}',
        "refresh_token=abc.def.ghi and client_secret: zzzz9999",
    )
    for text in samples:
        expected = text
        total = 0
        for index, pattern in enumerate(reference):
            replacement = (lambda m: m.group(1) + REDACTED) if index == 3 else REDACTED
            expected, found = pattern.subn(replacement, expected)
            total += found
        assert REDACTOR.redact_text(text) == (expected, total), text


def _spec_assignment_pattern() -> re.Pattern[str]:
    """REDACT-3 pattern 4 exactly as the reference writes it (quadratic on some inputs)."""
    s = JS_SPACE_CLASS
    return re.compile(
        r"(\b(?:[a-z0-9_-]*api[_-]?key|[a-z0-9_-]*(?:access|refresh|id)[_-]?token"
        r"|[a-z0-9_-]*client[_-]?secret|authorization|password|secret|token)"
        rf"{s}*[\"']?{s}*[:=]{s}*[\"']?)([^\"'{s[1:-1]},}}]{{4,}})",
        re.ASCII | re.IGNORECASE,
    )


_PIECES = st.sampled_from(
    [
        "api", "key", "api_key", "API-KEY", "apikey", "access", "refresh", "id", "token",
        "_token", "client", "secret", "client_secret", "authorization", "password", "x", "a",
        "Z9", "_", "-", " ", "\u00a0", "\u2028", "\t", ":", "=", '"', "'", ",", "}", ".", "[",
        "value", "abcd", "é", "\n",
    ]
)  # fmt: skip


@given(st.lists(_PIECES, max_size=24).map("".join))
def test_linear_pattern_4_finds_exactly_the_reference_matches(text: str) -> None:
    """REDACT-3: the rewritten pattern 4 gives the reference's output and count."""

    def keep(match: re.Match[str]) -> str:
        return match.group(1) + REDACTED

    spec = _spec_assignment_pattern().subn(keep, text)
    assert builtin_patterns()[3].subn(keep, text) == spec
    assert (builtin_patterns()[3].search(text) is None) == (spec[1] == 0)


def test_secret_keys_extended_and_the_reference_keepers_kept() -> None:  # REDACT-2
    for key in (
        "private_key",
        "aws_secret_access_key",
        "AWS_SESSION_TOKEN",
        "client_secret",
        "secretKey",
        "authToken",
        "db_passwd",
        "AZURE_OPENAI_API_KEY",
        "oauthRefreshToken",
    ):
        assert is_secret_key(key), key
    for key in ("tokenCount", "secretQuestion", "apiKeyLabel", "privateKeyPath", "keyId"):
        assert not is_secret_key(key), key


def test_keys_that_are_secrets_become_unique_markers_in_a_stable_order() -> None:
    first, _ = canary("github-token", 1)
    second, _ = canary("slack-token", 1)
    third, _ = canary("npm-token", 1)
    value: dict[str, object] = {first: 1, "[REDACTED]": 0, second: {third: "x"}, "plain": 2}
    swapped: dict[str, object] = {"plain": 2, second: {third: "x"}, "[REDACTED]": 0, first: 1}
    redacted, count = REDACTOR.redact(value).unwrap()
    again, _ = REDACTOR.redact(swapped).unwrap()
    assert count == 3
    assert redacted == again  # same members whatever the insertion order
    assert isinstance(redacted, dict)
    assert redacted["[REDACTED]"] == 0
    assert sorted(redacted) == ["[REDACTED]", "[REDACTED]#2", "[REDACTED]#3", "plain"]
    assert {redacted["[REDACTED]#2"] == 1, redacted["[REDACTED]#3"] == 1} == {True, False}
    nested = next(item for item in redacted.values() if isinstance(item, dict))
    assert nested == {"[REDACTED]": "x"}
    assert value is redacted  # in place: the object keeps its identity


def test_custom_patterns_do_not_rename_keys() -> None:  # REDACT-4
    custom = compile_redactor(True, ("internal-[0-9]+",)).unwrap()
    redacted, count = custom.redact({"internal-42": "internal-7"}).unwrap()
    assert (redacted, count) == ({"internal-42": REDACTED}, 1)


def test_protected_block_fields_still_refuse_a_matching_pattern() -> None:  # REDACT-6
    custom = compile_redactor(True, ("tex",)).unwrap()
    refused = custom.redact({"prompt": [{"type": "text", "text": "p"}]}, "prompt")
    assert 'protected content-block field "type"' in str(refused.failure())


def test_disabled_redaction_leaves_keys_and_metadata() -> None:  # REDACT-1
    off = compile_redactor(False, ()).unwrap()
    text, _ = canary("npm-token")
    assert off.redact({text: text}).unwrap() == ({text: text}, 0)
    metadata = RequestMetadata(1, 2, False, False, label=text)
    assert off.redact_metadata(metadata) is metadata


def test_metadata_view_strings_are_redacted() -> None:
    text, _ = canary("huggingface-token")
    metadata = RequestMetadata(
        1,
        2,
        False,
        False,
        label=f"run {text}",
        child_provider=text,
        child_model="m",
        tool_filter=ToolFilter(allow=(text,), deny=None),
    )
    redacted = REDACTOR.redact_metadata(metadata)
    assert redacted.label == f"run {REDACTED}"
    assert redacted.child_provider == REDACTED
    assert redacted.child_model == "m"
    assert redacted.tool_filter == ToolFilter(allow=(REDACTED,), deny=None)
    assert (redacted.prompt_blocks, redacted.prompt_bytes) == (1, 2)


def _literal_prefix(template: str) -> str:
    return template.split("{", 1)[0]


def _first_class(template: str) -> str:
    found = re.search(r"\{([A-Za-z])[0-9]+\}", template)
    return CANARY_CLASSES[found.group(1)] if found else "a"


@st.composite
def _near_miss_units(draw: st.DrawFn, shape: CompiledShape) -> str:
    """One near-miss of a shape: its prefix, a truncated or damaged canary, or a class run."""
    template = shape.shape.canary
    text, _ = expand_canary(template, random.Random(draw(st.integers(0, 99))).choice)
    kind = draw(st.sampled_from(["prefix", "truncated", "damaged", "run", "prefix-run"]))
    if kind == "prefix":
        return _literal_prefix(template) or text[:1]
    if kind == "truncated":
        return text[: draw(st.integers(1, max(1, len(text) - 1)))]
    if kind == "damaged":
        index = draw(st.integers(0, len(text) - 1))
        return (
            text[:index]
            + draw(st.sampled_from([" ", "-", ".", "\n", '"', "~"]))
            + text[index + 1 :]
        )
    alphabet = _first_class(template)
    run = "".join(draw(st.sampled_from(alphabet)) for _ in range(draw(st.integers(1, 12))))
    return run if kind == "run" else _literal_prefix(template) + run


#: Hostile inputs for the reference's patterns (pattern 4 as the reference wrote it took
#: 15 s on 16 KB of `a-`; a quadratic pattern would not finish on 1 MB).
_REFERENCE_UNITS = ("a-", "api_key", "api_key ", "Bearer ", "sk-", "sk--", "AKIA", "token= ")


@pytest.mark.parametrize("name", sorted(COMPILED))
@settings(max_examples=5)
@given(data=st.data())
def test_one_mebibyte_of_near_misses_then_the_canary(name: str, data: st.DataObject) -> None:
    """Each shape's pattern on >1 MiB of hypothesis-chosen near-misses still finds the canary.

    Only correctness is asserted; a backtracking blow-up would show as a test that never ends.
    """
    shape = COMPILED[name]
    unit = data.draw(_near_miss_units(shape), label="unit")
    joiner = data.draw(st.sampled_from(["", " ", "-", ".", "=", "\n", "_", "a", ":"]))
    piece = unit + joiner
    junk = piece * (MIB // len(piece) + 1)
    text, runs = canary(name, data.draw(st.integers(0, 9), label="seed"))
    redacted, count = Redactor(True, (shape.pattern,)).redact_text(f"{junk} {text} ")
    assert count >= 1
    for run in secret_runs(runs):
        assert run not in redacted


@pytest.mark.parametrize("unit", _REFERENCE_UNITS)
@pytest.mark.parametrize("index", range(4))
def test_reference_patterns_on_one_mebibyte(unit: str, index: int) -> None:
    pattern = builtin_patterns()[index]
    junk = unit * (MIB // len(unit) + 1)
    secret = "abcdEFGH1234wxyz"
    probe = ("Bearer ", "sk-", "AKIA", "password=")[index] + (
        "ABCDEFGH12345678" if index == 2 else secret
    )
    redacted, count = Redactor(True, (pattern,)).redact_text(f"{junk} {probe} ")
    assert count >= 1
    assert probe not in redacted


def test_catalogue_patterns_are_the_table_in_order() -> None:
    assert tuple(p.pattern for p in catalogue_patterns()) == tuple(s.regex for s in SHAPES)


def test_the_docs_page_lists_every_shape_with_its_template() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "redaction.md").read_text("utf-8")
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert len(rows) == len(SHAPES)
    for row, shape in zip(rows, SHAPES, strict=True):
        assert row.startswith(f"| `{shape.name}` | ")
        assert f"`{shape.canary.replace(chr(10), '⏎')}`" in row


def test_no_builtin_pattern_matches_fewer_characters_than_the_short_cut() -> None:
    """Strings shorter than SHORTEST_BUILTIN_MATCH skip the built-ins: none could match."""
    parse = re._parser.parse  # type: ignore[attr-defined]
    widths = [parse(p.pattern, p.flags).getwidth()[0] for p in REDACTOR.key_patterns]
    assert min(widths) == SHORTEST_BUILTIN_MATCH


def test_memoized_and_direct_paths_agree() -> None:
    direct = Redactor(True, REDACTOR.patterns, REDACTOR.key_patterns)
    for name in COMPILED:
        text, _ = canary(name, 5)
        for sample in (text, f"k {text}", text[:5], "x" * 300 + text):
            assert REDACTOR.redact_text(sample) == direct.redact_text(sample)


def test_a_bare_aws_secret_key_and_a_prose_password_are_redacted() -> None:
    """Issue 26: no `aws_secret_access_key=` beside the key, and passwords in sentences."""
    key, _ = canary("aws-secret-access-key-bare")
    word, _ = expand_canary("{a10}7!", random.Random("prose").choice)
    for text in (
        f"creds {key} in the env",
        f"AKIA{'Q' * 16} {key.lower()}",  # low entropy, but beside an access key id
        f"my password is {word}",
        f"Passwort: {word}",
        f"la contraseña es {word}",
        f"пароль: {word}",
        f"パスワードは{word}",
        f"pwd={word}",
    ):
        redacted, count = REDACTOR.redact_text(text)
        assert count >= 1, text
        assert word not in redacted
        assert key not in redacted
        assert key.lower() not in redacted


def test_bare_key_and_prose_near_misses_are_left_alone() -> None:
    for text in (
        "commit 3f786850e387550fdab836ed7d6dc881de23001b",  # 40 hex: entropy at most 4
        "ThisIsAVeryLongIdentifierNameForTesting1",  # an identifier: about 4.2 bits
        "the password is required",
        "Your password is incorrect.",
        "bypass=true",
    ):
        assert REDACTOR.redact_text(text) == (text, 0), text


#: Text pieces the reference patterns match in any letter case, and text around them.
_REFERENCE_PIECES = (
    "Bearer abcdefgh12345678",
    "BEARER\u00a0ABCDEFGH.~+/=",
    "sk-abcdefghijklmnop",
    "SK_ABCDEFGHIJKLMNOP",
    "GHP_abcdefghijklmnop",
    "AKIAABCDEFGHIJKLMNOP",
    "api_key=abcd1234",
    "X-API-KEY: 'secretvalue'",
    'refreshToken = "zzzz9999"',
    "CLIENT-SECRET:qwerty12",
    "Authorization: abcdefgh",
    "PASSWORD=hunter2!",
    "id_token: eyJhbGciOi",
)
_AROUND = ("", " ", "x", "café ", "日本語 ", "\n", "'", "ok, ")


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(
        st.tuples(st.sampled_from(_AROUND), st.sampled_from(_REFERENCE_PIECES)), max_size=4
    ),
    tail=st.sampled_from(_AROUND),
)
def test_the_literal_prefilter_never_changes_what_is_redacted(
    pieces: list[tuple[str, str]], tail: str
) -> None:
    """REDACT-3: the built-ins behind their literal prefilters redact as they do without."""
    text = "".join(before + piece for before, piece in pieces) + tail
    for pattern in builtin_patterns() + catalogue_patterns():
        alone = Redactor(enabled=True, patterns=(pattern,))
        filtered = alone.redact_text(text)
        with patch.dict(redact_module._HINTS, clear=True):  # every pattern runs on every text
            assert alone.redact_text(text) == filtered, pattern.pattern
