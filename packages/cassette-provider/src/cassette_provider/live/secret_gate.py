"""One cheap, exact pre-check per text: where no built-in pattern can match (issue 24).

Running the reference's four patterns and the 54 catalogued shapes costs about 60 regex
scans of every recorded string, almost all of them finding nothing. Every built-in match
holds at least one of three marks, checked here with a handful of C-level byte scans over
the ASCII-lowercased UTF-8 text (`str.lower` is slow on non-ASCII text; ASCII folding is
exactly the patterns' own `re.ASCII | re.IGNORECASE` folding):

- a run of `RUN` characters of `[A-Za-z0-9_+/=.~%-]`: every token shape (the reference's
  `sk-`/`gh?_` and `AKIA` patterns, every catalogued prefix token, JWTs, PEM-less keys,
  URLs of webhooks, UUIDs, the bare AWS key) holds its token, at least 15 such characters;
- a literal: `bearer` (reference pattern 1), `://` (passwords in URLs), `-----begin`
  (private key blocks) and the words for "password" (`password-in-prose`, which also
  matches `the password is …` with no separator);
- a separator (`:` or `=`) whose name before it, past whitespace, quotes
  and backslashes, ends in one of `_SEPARATED_NAMES` (reference pattern 4, the
  `secret-assignment`, GCP `private_key`, `Authorization:` and URL query shapes).

`may_hold_secret` is False only when none is present; then no built-in matches and the text
is stored as it is. Otherwise the patterns run as before, so the output never changes, only
the time. `GATED_SHAPES` names the catalogue rows this reasoning covers: a test fails when
a shape is added without a look at its marks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

__all__ = ["GATED_SHAPES", "RUN", "may_hold_secret"]

#: The shortest token run any token shape holds (`xoxb-` + 10, reference `sk-` + 12).
RUN: Final = 15
_TOKEN_CHARS: Final = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_+/=.~%-"
)
#: Token characters to `a`, every other byte to a space: a run is `RUN` a's in a row (a
#: needle the byte search skips along quickly, since most bytes of prose are in a run).
_TOKEN_RUNS: Final = bytes(0x61 if byte in _TOKEN_CHARS else 0x20 for byte in range(256))
_RUN_MARK: Final = b"a" * RUN
#: ASCII letters to lower case, ASCII white space to a space and `=` to `:` (both
#: separators alike; `://` then also stands for `=//`, which only widens the gate).
_FOLD: Final = bytes.maketrans(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZ\t\n\r\x0b\x0c=", b"abcdefghijklmnopqrstuvwxyz     :"
)


_Search = Callable[[bytes], re.Match[bytes] | None]


def _searches(words: tuple[str, ...]) -> tuple[_Search, ...]:
    """A literal search per word (the regex engine's literal scan runs at an even pace)."""
    return tuple(re.compile(re.escape(word.encode("utf-8"))).search for word in words)


def _grouped(words: tuple[str, ...]) -> _Search:
    """One search for any of `words`, led by their common prefix (a literal scan as fast as
    one word's, where a search per word would scan the text once for each)."""
    encoded = [word.encode("utf-8") for word in words]
    if len(encoded) == 1:
        return re.compile(re.escape(encoded[0])).search
    first, last = min(encoded), max(encoded)  # the sorted extremes share the common prefix
    shared = next(
        (index for index, (a, b) in enumerate(zip(first, last, strict=False)) if a != b),
        len(first),
    )
    rests = b"|".join(re.escape(word[shared:]) for word in encoded)
    return re.compile(re.escape(encoded[0][:shared]) + b"(?:" + rests + b")").search


#: The literal marks: reference pattern 1, URL passwords, key blocks, and the words of
#: password-in-prose (its non-ASCII letters are matched in the listed cases only); words
#: sharing a prefix are grouped, each group taking one search.
_WORD_GROUPS: Final = (
    ("bearer",),
    ("://",),
    ("-----begin",),
    ("pw", "parola"),
    ("kennwort",),
    ("contrase",),
    ("senha", "senord"),
    ("wachtwoord",),
    ("haslo", "heslo"),
    ("salasana",),
    ("jelsz",),
    ("ifre",),
)
_WORDS: Final = tuple(word for group in _WORD_GROUPS for word in group)
#: Words holding `pass`: looked for only where `pass` is.
_PASS_WORDS: Final = ("passw", "passc", "passp", "mot de passe")
#: Words with non-ASCII letters: each looked for only where its first byte is.
_NON_ASCII_WORDS: Final = ("hasło", "ароль", "ПАРОЛЬ", "パスワード", "密码", "密碼", "비밀번호")
_LITERALS: Final = tuple(map(_grouped, _WORD_GROUPS))
_PASS: Final = re.compile(b"pass").search
_PASS_LITERALS: Final = (_grouped(_PASS_WORDS[:3]), *_searches(_PASS_WORDS[3:]))
_NON_ASCII: Final = tuple(
    zip(
        [word.encode("utf-8")[0] for word in _NON_ASCII_WORDS],
        _searches(_NON_ASCII_WORDS),
        strict=True,
    )
)
#: Every literal in one alternation, for texts of at most `_SHORT` bytes (one scan whose
#: cost grows with the text, where the searches above each cost a fixed amount).
_ANY_LITERAL: Final = re.compile(
    b"|".join(re.escape(word.encode("utf-8")) for word in _WORDS + _PASS_WORDS + _NON_ASCII_WORDS)
).search
_SHORT: Final = 96
#: How a name before a separator ends: `api_key`, `client-secret`, `private_key_id`, ….
_SEPARATED_NAMES: Final = (
    b"key",
    b"keyid",
    b"key_id",
    b"key-id",
    b"token",
    b"secret",
    b"authorization",
    b"password",
    b"passwd",
    b"passphrase",
    b"credential",
    b"credentials",
    b"pwd",
    b"signature",
)
#: What may stand between a name and its separator: white space (JavaScript's, whose
#: non-ASCII members are bytes >= 0x80), quotes and the backslashes that escape them.
_BETWEEN: Final = b" \"'\\" + bytes(range(0x80, 0x100))

#: The catalogue rows whose marks are listed above (secret_shapes.SHAPES names).
GATED_SHAPES: Final = frozenset(
    {
        "aws-access-key-id",
        "aws-secret-access-key",
        "aws-session-token",
        "github-fine-grained-pat",
        "github-token",
        "gitlab-token",
        "slack-token",
        "slack-app-token",
        "slack-webhook-url",
        "google-api-key",
        "google-oauth-client-secret",
        "google-oauth-access-token",
        "gcp-service-account-private-key",
        "json-web-token",
        "openssh-private-key",
        "pem-private-key",
        "pgp-private-key-block",
        "basic-auth-url",
        "authorization-header-credential",
        "azure-storage-account-key",
        "azure-sas-signature",
        "azure-ad-client-secret",
        "npm-token",
        "pypi-token",
        "huggingface-token",
        "sendgrid-api-key",
        "stripe-secret-key",
        "stripe-webhook-secret",
        "openai-api-key",
        "anthropic-api-key",
        "twilio-api-key",
        "twilio-account-sid",
        "discord-bot-token",
        "discord-webhook-url",
        "telegram-bot-token",
        "heroku-api-key",
        "heroku-platform-token",
        "digitalocean-token",
        "shopify-token",
        "mailgun-api-key",
        "mailchimp-api-key",
        "square-token",
        "atlassian-api-token",
        "linear-api-key",
        "databricks-token",
        "postman-api-key",
        "new-relic-key",
        "grafana-token",
        "age-secret-key",
        "doppler-token",
        "query-credential",
        "aws-secret-access-key-bare",
        "password-in-prose",
        "secret-assignment",
    }
)


#: A separator, then (reading backwards) what may stand between, then a name: in the
#: reversed text a name before a separator is what follows it, which one scan finds.
_SEPARATOR_THEN_NAME: Final = re.compile(
    b":["
    + b"".join(re.escape(bytes([byte])) for byte in _BETWEEN)
    + b"]*+(?:"
    + b"|".join(re.escape(name[::-1]) for name in _SEPARATED_NAMES)
    + b")"
).search


def _named_separator(folded: bytes) -> bool:
    """Whether a separator follows, past `_BETWEEN` bytes, a name in `_SEPARATED_NAMES`.

    The text is read reversed (`=` is folded to `:`): each separator is found by a literal
    scan, the run between is taken whole (as `rstrip` would take it) and the name must
    follow, all in C and linear in the text.
    """
    return _SEPARATOR_THEN_NAME(folded[::-1]) is not None


def _has_literal(folded: bytes) -> bool:
    """Whether one of the literal marks occurs in the folded text.

    A short text takes one scan for all of them (a scan that costs per byte); a long one
    a search per literal (each fast per byte, but with a fixed cost).
    """
    if len(folded) <= _SHORT:
        return _ANY_LITERAL(folded) is not None
    if any(search(folded) for search in _LITERALS):
        return True
    if _PASS(folded) and any(search(folded) for search in _PASS_LITERALS):
        return True
    return not folded.isascii() and any(
        lead in folded and search(folded) for lead, search in _NON_ASCII
    )


def may_hold_secret(text: str) -> bool:
    """False only when no built-in pattern (reference or catalogue) can match in `text`."""
    data = text.encode("utf-8", "surrogatepass")
    if data.translate(_TOKEN_RUNS).find(_RUN_MARK) != -1:
        return True
    folded = data.translate(_FOLD)
    return _has_literal(folded) or _named_separator(folded)
