"""Persistence redaction: secret keys, credential patterns, protected block fields (REDACT-*)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from returns.result import Failure, Result, Success

from cassette_provider.js_regex import JS_SPACE_CLASS, PatternError, compile_js_pattern

__all__ = [
    "REDACTED",
    "ProtectedFieldError",
    "Redactor",
    "builtin_patterns",
    "compile_redactor",
    "is_secret_key",
]

REDACTED: Final = "[REDACTED]"
_EXACT_KEYS: Final = frozenset({"apikey", "authorization", "cookie", "password", "secret", "token"})
_KEY_SUFFIXES: Final = ("apikey", "accesstoken", "refreshtoken", "idtoken", "clientsecret")
_NOT_KEY_CHARS: Final = re.compile(r"[^a-z0-9]")
_S: Final = JS_SPACE_CLASS


def is_secret_key(key: str) -> bool:
    """Whether an object member's key names a secret (REDACT-2)."""
    normalized = _NOT_KEY_CHARS.sub("", key.lower())
    return normalized in _EXACT_KEYS or normalized.endswith(_KEY_SUFFIXES)


def builtin_patterns() -> tuple[re.Pattern[str], ...]:
    """The four built-in credential patterns, in order (REDACT-3)."""
    ai = re.ASCII | re.IGNORECASE
    return (
        re.compile(rf"\b(?:Bearer{_S}+)[A-Za-z0-9._~+/=-]{{8,}}", ai),
        re.compile(r"\b(?:sk[-_]|gh[opusr]_)[A-Za-z0-9_-]{12,}\b", ai),
        re.compile(r"\bAKIA[0-9A-Z]{16}\b", re.ASCII),
        re.compile(
            r"(\b(?:[a-z0-9_-]*api[_-]?key|[a-z0-9_-]*(?:access|refresh|id)[_-]?token"
            r"|[a-z0-9_-]*client[_-]?secret|authorization|password|secret|token)"
            rf"{_S}*[\"']?{_S}*[:=]{_S}*[\"']?)([^\"'{_S[1:-1]},}}]{{4,}})",
            ai,
        ),
    )


class ProtectedFieldError(Exception):
    """A pattern would change a content block's `type` or an attachment's `mediaType`."""

    code = "INVALID_CONFIG"


def _keep_prefix(match: re.Match[str]) -> str:
    return match.group(1) + REDACTED


@dataclass(frozen=True, slots=True)
class Redactor:
    """Compiled patterns (built-ins then custom); `enabled=False` redacts nothing."""

    enabled: bool
    patterns: tuple[re.Pattern[str], ...]

    def redact_text(self, text: str) -> tuple[str, int]:
        """Apply each pattern to the previous output; every match counts (REDACT-5)."""
        total = 0
        for pattern in self.patterns:
            replacement = (
                _keep_prefix if pattern.groups >= 2 and pattern in _BUILTIN[3:] else REDACTED
            )
            text, count = pattern.subn(replacement, text)
            total += count
        return text, total

    def matches_any(self, text: str) -> bool:
        """Whether any pattern matches somewhere in `text`."""
        return any(pattern.search(text) is not None for pattern in self.patterns)

    def redact(
        self, value: object, content_root: str | None = None
    ) -> Result[tuple[object, int], ProtectedFieldError]:
        """Redact a plain-JSON snapshot in place and count; content blocks keep type fields."""
        if not self.enabled:
            return Success((value, 0))
        protected = _protected_fields(value, content_root)
        if isinstance(value, str):
            return Success(self.redact_text(value))
        count = 0
        stack: list[object] = [value]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                for key, item in node.items():
                    if is_secret_key(key):
                        node[key] = REDACTED
                        count += 1
                    elif isinstance(item, str):
                        if (id(node), key) in protected:
                            if self.matches_any(item):
                                return Failure(
                                    ProtectedFieldError(
                                        "redaction pattern matches protected content-block "
                                        f'field "{key}"'
                                    )
                                )
                            continue
                        node[key], found = self.redact_text(item)
                        count += found
                    elif isinstance(item, (dict, list)):
                        stack.append(item)
            elif isinstance(node, list):
                for index, item in enumerate(node):
                    if isinstance(item, str):
                        node[index], found = self.redact_text(item)
                        count += found
                    elif isinstance(item, (dict, list)):
                        stack.append(item)
        return Success((value, count))


_BUILTIN: Final = builtin_patterns()


def _protected_fields(value: object, content_root: str | None) -> set[tuple[int, str]]:
    """(object id, field) of block `type`s and image attachment `mediaType`s (REDACT-6)."""
    protected: set[tuple[int, str]] = set()
    if content_root is None or not isinstance(value, dict):
        return protected
    root = value.get(content_root)
    pending: list[object] = list(root) if isinstance(root, list) else []
    while pending:
        block = pending.pop()
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            continue
        protected.add((id(block), "type"))
        if block["type"] == "image" and isinstance(block.get("attachment"), dict):
            protected.add((id(block["attachment"]), "mediaType"))
        if block["type"] == "tool-result" and isinstance(block.get("content"), list):
            pending.extend(block["content"])
    return protected


def compile_redactor(enabled: bool, custom: Sequence[str]) -> Result[Redactor, PatternError]:
    """Built-ins plus translated custom patterns; nothing is compiled when disabled (REDACT-1)."""
    if not enabled:
        return Success(Redactor(enabled=False, patterns=()))
    compiled: list[re.Pattern[str]] = list(_BUILTIN)
    for source in custom:
        pattern = compile_js_pattern(source)
        if isinstance(pattern, Failure):
            return pattern
        compiled.append(pattern.unwrap())
    return Success(Redactor(enabled=True, patterns=tuple(compiled)))
