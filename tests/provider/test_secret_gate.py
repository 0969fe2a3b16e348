"""The one-scan gate in front of the built-in patterns never changes what is redacted (issue 24).

`secret_gate.may_hold_secret` says False only where no built-in (the reference's four
patterns, the catalogue) matches; these tests hold it to that on every canary, the
reference's pieces, names before separators with anything allowed between them, the words
for "password" in every form, and random mixes of them with prose (REDACT-3, REDACT-5).
"""

from __future__ import annotations

import random

import pytest
from cassette_provider.live import redact as redact_module
from cassette_provider.live import secret_gate
from cassette_provider.live.redact import Redactor, compile_redactor
from cassette_provider.live.secret_gate import GATED_SHAPES, RUN, may_hold_secret
from cassette_provider.live.secret_shapes import SHAPES, compiled_shapes, expand_canary
from hypothesis import given, settings
from hypothesis import strategies as st

REDACTOR = compile_redactor(True, ()).unwrap()
BUILTINS = redact_module.builtin_patterns() + redact_module.catalogue_patterns()
UNGATED = Redactor(enabled=True, patterns=BUILTINS)  # no gate, no memo: every pattern runs
COMPILED = {shape.shape.name: shape for shape in compiled_shapes()}

#: Pieces every built-in must see through the gate: reference pieces, names and separators
#: with what may stand between them, the words for "password" in their forms.
PIECES = (
    "Bearer abcdefgh12345678",
    "BEARER\u00a0ABCDEFGH.~+/=",
    "sk-abcdefghijklmnop",
    "GHP_abcdefghijklmnop",
    "AKIAABCDEFGHIJKLMNOP",
    "api_key=abcd1234",
    "X-API-KEY: 'secretvalue'",
    'refreshToken = "zzzz9999"',
    "CLIENT-SECRET:qwerty12",
    "Authorization: abcdefgh",
    'authorization \u3000\u2028 "\u00a0 : abcdefgh',
    "PASSWORD=hunter2!",
    "id_token: eyJhbGciOi",
    "token" + " " * 90 + ": abcd1234",
    'private_key_id\\": \\"0123456789abcdef',
    "private-key-id = 'abcdefgh12'",
    "db_passphrase = hunter2hunter2",
    "session_token => abcd1234",
    "Credentials:abcd1234",
    "?x-amz-signature=abc",
    "&pwd=x",
    ";Signature=abc",
    "http://user:pw@host",
    "the vault password is hunter-2024",
    "PASSWORT ist geheim-1",
    "mot de passe est secret#1",
    "contraseña es clave#123",
    "Contrasena: clave#123",
    "senha é segredo#1",
    "parola d'ordine è segreto#1",
    "wachtwoord is geheim#1",
    "Lösenord är hemligt#1",
    "LÖSENORD: hemligt#1",
    "hasło jest tajne#1",
    "HASLO: tajne#12",
    "salasana on salainen#1",
    "heslo je tajne#1",
    "jelszó: titkos#1",
    "Şifre: gizli#123",
    "ПАРОЛЬ: секрет#1",
    "Пароль это секрет#1",
    "パスワードは secret#1",
    "密码是 secret#1",
    "密碼：secret#1",
    "비밀번호는 secret#1",
    "pwd：x#12345",
    "-----BEGIN RSA PRIVATE KEY-----",
)
PROSE = ("", " ", "x", "café ", "日本語 ", "\n", "'", "ok, ", "e=mc² ", "TODO: ", "=> ", "\x00")


def _exact(text: str) -> tuple[str, int]:
    return UNGATED.redact_text(text)


def test_the_gate_was_reasoned_against_every_catalogue_shape() -> None:
    assert {shape.name for shape in SHAPES} == GATED_SHAPES


@pytest.mark.parametrize("name", sorted(COMPILED))
@pytest.mark.parametrize("seed", range(5))
def test_every_canary_passes_the_gate(name: str, seed: int) -> None:
    text, _ = expand_canary(COMPILED[name].shape.canary, random.Random(f"{name}/{seed}").choice)
    for around in ("{}", "see {} now", '{{"value": "{}"}}', "x='{}',", "<{}>\n"):
        assert may_hold_secret(around.format(text)), (name, around)


@pytest.mark.parametrize("piece", PIECES)
def test_every_piece_that_a_builtin_matches_passes_the_gate(piece: str) -> None:
    assert _exact(piece)[1] >= 1, piece  # the piece is a match (keeps this list honest)
    assert may_hold_secret(piece)
    assert REDACTOR.redact_text(piece) == _exact(piece)


def test_prose_a_harness_records_passes_unredacted() -> None:
    prose = (
        "the cassette replay function returns value error file src/index.ts line const "
        'await import 42 3.14 0x1f null true => (); {} [] "quoted" C:\\tmp\\x tab\there '
        "new\nline café naïve → — 日本語 😀 Ünïcödé <tag> 50% e=mc² résumé Ωmega "
        "user@example.com TODO: passes fails fixed"
    )
    assert not may_hold_secret(prose)
    assert REDACTOR.redact_text(prose) == (prose, 0)
    assert not may_hold_secret("a" * (RUN - 1) + " " + "b" * (RUN - 1))
    assert may_hold_secret("a" * RUN)


@settings(max_examples=400, deadline=None)
@given(
    parts=st.lists(
        st.one_of(
            st.sampled_from(PIECES),
            st.sampled_from(PROSE),
            st.text(alphabet="ab=:-_ '\"\\\t\u3000é密", max_size=12),
        ),
        max_size=6,
    )
)
def test_gated_and_ungated_redaction_agree(parts: list[str]) -> None:
    text = "".join(parts)
    assert REDACTOR.redact_text(text) == _exact(text)
    if _exact(text)[1]:
        assert may_hold_secret(text)


@settings(max_examples=200, deadline=None)
@given(
    leaves=st.lists(st.one_of(st.sampled_from(PIECES), st.sampled_from(PROSE)), max_size=5),
    keys=st.lists(st.sampled_from(("text", "token", "apiKey", "api_key=x", "note")), max_size=5),
)
def test_a_value_gated_as_a_whole_redacts_as_each_string_alone(
    leaves: list[str], keys: list[str]
) -> None:
    blocks: list[dict[str, object]] = [{"type": "text", "text": leaf} for leaf in leaves]
    value: dict[str, object] = {"output": blocks}
    value.update({key: {"inner": index} for index, key in enumerate(keys)})
    _, count = REDACTOR.redact(value, "output").unwrap()
    assert [block["text"] for block in blocks] == [_exact(leaf)[0] for leaf in leaves]
    secret_keys = sum(1 for key in set(keys) if redact_module.is_secret_key(key))
    renamed = sum(_exact(key)[1] for key in set(keys) if not redact_module.is_secret_key(key))
    assert count == sum(_exact(leaf)[1] for leaf in leaves) + secret_keys + renamed


def _split_named_separator(folded: bytes) -> bool:
    """The gate's name-before-separator mark as first written: split, strip, compare ends."""
    between = secret_gate._BETWEEN
    names = secret_gate._SEPARATED_NAMES
    return any(piece.rstrip(between).endswith(names) for piece in folded.split(b":")[:-1])


_NAME_PARTS = st.sampled_from(
    [name.decode() for name in secret_gate._SEPARATED_NAMES] + ["ke", "y", "_", "-", "ab"]
)
_GATE_BYTES = st.sampled_from([":", " ", '"', "'", "\\", "é", "\u3000", "x", "\x00"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_NAME_PARTS, _GATE_BYTES), max_size=12))
def test_the_reversed_scan_finds_a_name_before_a_separator_as_splitting_does(
    parts: list[str],
) -> None:  # REDACT-3: the gate's one regex scan says what the split pieces say
    folded = "".join(parts).encode("utf-8").translate(secret_gate._FOLD)
    assert secret_gate._named_separator(folded) == _split_named_separator(folded)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(secret_gate._WORDS + secret_gate._PASS_WORDS),
            st.text(alphabet="pwasohenrldb- :/", max_size=6),
        ),
        max_size=6,
    )
)
def test_grouped_literal_searches_find_exactly_the_words(parts: list[str]) -> None:
    # REDACT-3: one search per group of words finds a word wherever a search per word does.
    folded = "".join(parts).encode("utf-8")
    words = [word.encode("utf-8") for word in secret_gate._WORDS]
    pass_words = [word.encode("utf-8") for word in secret_gate._PASS_WORDS]
    found = any(search(folded) for search in secret_gate._LITERALS)
    assert found == any(word in folded for word in words)
    found_pass = any(search(folded) for search in secret_gate._PASS_LITERALS)
    assert found_pass == any(word in folded for word in pass_words)
