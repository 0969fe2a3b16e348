"""Persistence redaction: secret keys, credential patterns, protected block fields (REDACT-*).

The reference's four patterns run first, exactly as the reference applies them, so a string
they fully clean is stored byte for byte as the reference stores it; the catalogue of
credential shapes (secret_shapes.py) runs next, then custom patterns. Object keys are
redacted too, with the reference patterns and the catalogue (custom patterns apply to
values only, as in the reference, so a broad custom pattern cannot rename schema members).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from cassette_format.records import RequestMetadata, ToolFilter
from cassette_topology.errors import INVALID_CONFIG
from returns.iterables import Fold
from returns.result import Failure, Result, Success

from cassette_provider.contract.errors import ProviderProblem
from cassette_provider.live.js_regex import JS_SPACE_CLASS, compile_js_pattern
from cassette_provider.live.secret_gate import may_hold_secret
from cassette_provider.live.secret_shapes import Acceptor, compiled_shapes
from cassette_provider.live.snapshot import Strings, copy_snapshot

__all__ = [
    "REDACTED",
    "SHORTEST_BUILTIN_MATCH",
    "Redactor",
    "builtin_patterns",
    "catalogue_patterns",
    "compile_redactor",
    "is_secret_key",
]

REDACTED: Final = "[REDACTED]"
_EXACT_KEYS: Final = frozenset({"apikey", "authorization", "cookie", "password", "secret", "token"})
#: The reference's suffixes (REDACT-2), then ours: private keys, AWS secret keys and session
#: tokens, auth tokens and passwd spellings. `tokenCount`, `secretQuestion`, `apiKeyLabel` stay.
_KEY_SUFFIXES: Final = (
    "apikey",
    "accesstoken",
    "refreshtoken",
    "idtoken",
    "clientsecret",
    "privatekey",
    "secretkey",
    "secretaccesskey",
    "sessiontoken",
    "authtoken",
    "passwd",
)
_NOT_KEY_CHARS: Final = re.compile(r"[^a-z0-9]")
_S: Final = JS_SPACE_CLASS


def is_secret_key(key: str) -> bool:
    """Whether an object member's key names a secret (REDACT-2, extended by issue 14).

    Short keys are memoized: the same few (`type`, `text`, `usage`, …) come on every call.
    """
    return _secret_key_cached(key) if len(key) <= _CACHED_LENGTH else _secret_key(key)


@functools.lru_cache(maxsize=4096)
def _secret_key_cached(key: str) -> bool:
    """`_secret_key`, memoized."""
    return _secret_key(key)


def _secret_key(key: str) -> bool:
    """The key without case and punctuation is a secret name or ends in one."""
    normalized = _NOT_KEY_CHARS.sub("", key.lower())
    return normalized in _EXACT_KEYS or normalized.endswith(_KEY_SUFFIXES)


def builtin_patterns() -> tuple[re.Pattern[str], ...]:
    """The reference's four credential patterns, in order (REDACT-3).

    Pattern 4 is written so that it finds exactly the reference's matches in linear time:
    a name run is entered only at its start (the reference's leading `\\b[a-z0-9_-]*` retried
    from every position of a run, quadratic on `a-a-a-…`), and the separator's repetitions
    are possessive (they never need to give characters back). Since capture 1 is kept
    verbatim, where inside the run a match starts never changes the output or the count.
    """
    ai = re.ASCII | re.IGNORECASE
    return (
        re.compile(rf"\b(?:Bearer{_S}+)[A-Za-z0-9._~+/=-]{{8,}}", ai),
        re.compile(r"\b(?:sk[-_]|gh[opusr]_)[A-Za-z0-9_-]{12,}\b", ai),
        re.compile(r"\bAKIA[0-9A-Z]{16}\b", re.ASCII),
        re.compile(
            r"((?:(?<![a-z0-9_-])[a-z0-9_-]*(?:api[_-]?key|(?:access|refresh|id)[_-]?token"
            r"|client[_-]?secret)|\b(?:authorization|password|secret|token))"
            rf"{_S}*+[\"']?{_S}*+[:=]{_S}*+[\"']?+)([^\"'{_S[1:-1]},}}]{{4,}})",
            ai,
        ),
    )


def catalogue_patterns() -> tuple[re.Pattern[str], ...]:
    """The catalogued credential shapes' patterns, in catalogue order (secret_shapes.py)."""
    return tuple(shape.pattern for shape in _SHAPES)


def _keep_prefix(match: re.Match[str]) -> str:
    """Reference pattern 4's replacement: capture 1 kept, the value replaced."""
    return match.group(1) + REDACTED


def _keep_around_secret(match: re.Match[str]) -> str:
    """The match with only its `secret` group replaced."""
    start, end = match.span("secret")
    whole = match.string
    return whole[match.start() : start] + REDACTED + whole[end : match.end()]


def _accepted(pattern: re.Pattern[str], text: str, accept: Acceptor, value: str) -> tuple[str, int]:
    """Replace only the matches `accept` takes (their `secret` group); count only those."""
    taken = 0

    def replace(match: re.Match[str]) -> str:
        nonlocal taken
        if not accept(match.group("secret"), value):
            return match.group()
        taken += 1
        return _keep_around_secret(match)

    return pattern.sub(replace, text), taken


def _apply(patterns: Sequence[re.Pattern[str]], text: str) -> tuple[str, int]:
    """Run each pattern on the previous output; every match counts (REDACT-5).

    A built-in pattern runs only if one of its literals occurs in the current text (lowered):
    every match of it contains one, so skipping it changes nothing but the time. A shape with
    an acceptor is asked about each match, seeing the value as it came in.
    """
    total = 0
    lowered: str | None = None
    value = text
    for pattern in patterns:
        hints = _HINTS.get(pattern)
        if hints is not None:
            if lowered is None:
                lowered = text.lower()
            if hints.search(lowered) is None:
                continue
        accept = _ACCEPTORS.get(pattern)
        if accept is not None:
            text, count = _accepted(pattern, text, accept, value)
        elif pattern is _REFERENCE_ASSIGNMENT:
            text, count = pattern.subn(_keep_prefix, text)
        elif "secret" in pattern.groupindex:
            text, count = pattern.subn(_keep_around_secret, text)
        else:
            text, count = pattern.subn(REDACTED, text)
        if count:
            total += count
            lowered = None
    return text, total


#: No built-in pattern matches fewer characters (`://:x@`, `?key=x`); a test checks it.
SHORTEST_BUILTIN_MATCH: Final = 6
_CACHED_LENGTH: Final = 256


def _gated(text: str) -> tuple[str, int]:
    """The built-ins over one string, unless it has none of the marks every match holds.

    Almost every string a harness records has none (secret_gate.py): it is returned at once.
    """
    if not may_hold_secret(text):
        return text, 0
    return _apply(_KEY_PATTERNS, text)


@functools.lru_cache(maxsize=4096)
def _builtins_cached(text: str) -> tuple[str, int]:
    """Memoized built-ins (the process already holds these strings; nothing is written)."""
    return _gated(text)


def _builtins(text: str) -> tuple[str, int]:
    """The built-ins over one string; short strings (keys, labels, names) are memoized."""
    if len(text) < SHORTEST_BUILTIN_MATCH:
        return text, 0
    if len(text) <= _CACHED_LENGTH:
        return _builtins_cached(text)
    return _gated(text)


def _matches(patterns: Sequence[re.Pattern[str]], text: str) -> bool:
    """Whether any pattern matches somewhere in `text`; built-ins behind their prefilter."""
    lowered = text.lower()
    for pattern in patterns:
        hints = _HINTS.get(pattern)
        if hints is not None and hints.search(lowered) is None:
            continue
        if pattern.search(text) is not None:
            return True
    return False


@functools.lru_cache(maxsize=1024)
def _builtins_match(text: str) -> bool:
    """Memoized: whether a built-in matches a protected field (block types repeat)."""
    return may_hold_secret(text) and _matches(_KEY_PATTERNS, text)


@dataclass(frozen=True, slots=True)
class Redactor:
    """Compiled patterns (built-ins then custom); `enabled=False` redacts nothing.

    `key_patterns` are the ones applied to object keys: the built-ins without custom patterns.
    `builtins` says that `patterns` starts with exactly the built-ins (compile_redactor's
    redactors), which lets short strings take the memoized path.
    """

    enabled: bool
    patterns: tuple[re.Pattern[str], ...]
    key_patterns: tuple[re.Pattern[str], ...] = ()
    builtins: bool = False

    def redact_text(self, text: str) -> tuple[str, int]:
        """Apply each pattern to the previous output; every match counts (REDACT-5)."""
        if not self.builtins:
            return _apply(self.patterns, text)
        if self._builtins_only:  # the usual redactor: nothing to apply after the built-ins
            return _builtins(text)
        text, total = _builtins(text)
        text, custom = _apply(self.patterns[len(_KEY_PATTERNS) :], text)
        return text, total + custom

    def _redact_key(self, key: str) -> tuple[str, int]:
        """An object key through the built-ins only (custom patterns never rename keys)."""
        return _builtins(key) if self.builtins else _apply(self.key_patterns, key)

    def matches_any(self, text: str) -> bool:
        """Whether any pattern matches somewhere in `text` (built-ins memoized, prefiltered)."""
        if not self.builtins:
            return _matches(self.patterns, text)
        custom = self.patterns[len(_KEY_PATTERNS) :]
        builtin = (
            _builtins_match(text)
            if len(text) <= _CACHED_LENGTH
            else may_hold_secret(text) and _matches(_KEY_PATTERNS, text)
        )
        return builtin or _matches(custom, text)

    def redact_metadata(self, metadata: RequestMetadata) -> RequestMetadata:
        """The metadata view with its strings redacted (label, child provider/model, tools).

        The usual view, one redaction changes nothing in, is returned as it is.
        """
        if not self.enabled:
            return metadata

        def text(value: str | None) -> str | None:
            return None if value is None else self.redact_text(value)[0]

        def names(value: Sequence[str] | None) -> tuple[str, ...] | None:
            return None if value is None else tuple(self.redact_text(item)[0] for item in value)

        tools = metadata.tool_filter
        label = text(metadata.label)
        child_provider = text(metadata.child_provider)
        child_model = text(metadata.child_model)
        tool_filter = (
            None if tools is None else ToolFilter(allow=names(tools.allow), deny=names(tools.deny))
        )
        if (
            label == metadata.label
            and child_provider == metadata.child_provider
            and child_model == metadata.child_model
            and tool_filter == tools
        ):
            return metadata
        return RequestMetadata(
            label=label,
            prompt_blocks=metadata.prompt_blocks,
            prompt_bytes=metadata.prompt_bytes,
            has_output_schema=metadata.has_output_schema,
            max_depth=metadata.max_depth,
            child_provider=child_provider,
            child_model=child_model,
            tool_filter=tool_filter,
            has_persona=metadata.has_persona,
        )

    def redact(
        self, value: object, content_root: str | None = None
    ) -> Result[tuple[object, int], ProviderProblem]:
        """Redact a plain-JSON snapshot in place and count; content blocks keep type fields."""
        if not self.enabled:
            return Success((value, 0))
        if self._builtins_only:
            clean, secret_keys = _clean(value)
            if clean:  # what the walk below does, without asking any pattern
                return Success((value, _redact_secret_keys(value) if secret_keys else 0))
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
                                    ProviderProblem(
                                        "redaction pattern matches protected content-block "
                                        f'field "{key}"',
                                        INVALID_CONFIG,
                                    )
                                )
                            continue
                        node[key], found = self.redact_text(item)
                        count += found
                    elif isinstance(item, (dict, list)):
                        stack.append(item)
                count += self._rename_keys(node)
            elif isinstance(node, list):
                for index, item in enumerate(node):
                    if isinstance(item, str):
                        node[index], found = self.redact_text(item)
                        count += found
                    elif isinstance(item, (dict, list)):
                        stack.append(item)
        return Success((value, count))

    def redacted(
        self,
        value: dict[str, object],
        content_root: str | None = None,
        strings: Strings | None = None,
    ) -> Result[tuple[dict[str, object], int], ProviderProblem]:
        """What to store of a snapshot: the value itself when redaction leaves it as it is,
        else a redacted copy (`value` is never changed).

        Issue 24: the usual value (no secret, no secret key) is checked once and not copied;
        `strings`, what the snapshot walk collected of `value`, spares a walk to find them.
        """
        if not self.enabled:
            return Success((value, 0))
        if self._builtins_only:
            clean = _clean(value) if strings is None else _clean_strings(strings)
            if clean == (True, False):
                return Success((value, 0))
        copy = copy_snapshot(value)
        return self.redact(copy, content_root).map(lambda redacted: (copy, redacted[1]))

    @property
    def _builtins_only(self) -> bool:
        """Whether the patterns are exactly the built-ins (no custom pattern to ask)."""
        return self.builtins and len(self.patterns) == len(_KEY_PATTERNS)

    def _rename_keys(self, node: dict[str, object]) -> int:
        """Redact the object's keys in place; returns the match count.

        A changed key that collides with another key gets `#2`, `#3`, … appended; renamed keys
        are numbered in sorted order of the original keys, so the output does not depend on
        insertion order. Values stay with their keys and the object keeps its identity.
        """
        renamed: dict[str, str] = {}
        count = 0
        for key in node:
            new_key, found = self._redact_key(key)
            if found:
                renamed[key] = new_key
                count += found
        if not renamed:
            return 0
        taken = {key for key in node if key not in renamed}
        final: dict[str, str] = {}
        for key in sorted(renamed):
            candidate, suffix = renamed[key], 2
            while candidate in taken:
                candidate, suffix = f"{renamed[key]}#{suffix}", suffix + 1
            taken.add(candidate)
            final[key] = candidate
        members = [(final.get(key, key), item) for key, item in node.items()]
        node.clear()
        node.update(members)
        return count


_BUILTIN: Final = builtin_patterns()
_REFERENCE_ASSIGNMENT: Final = _BUILTIN[3]
#: Literals every match of each reference pattern contains, lowercased (its prefilter).
_REFERENCE_HINTS: Final = (
    ("bearer",),
    ("sk-", "sk_", "gho_", "ghp_", "ghu_", "ghs_", "ghr_"),
    ("akia",),
    ("api", "token", "secret", "authorization", "password"),
)
_SHAPES: Final = compiled_shapes()
_ACCEPTORS: Final = {shape.pattern: shape.shape.accept for shape in _SHAPES if shape.shape.accept}


def _hint_search(hints: Sequence[str]) -> re.Pattern[str]:
    """One search for any of a pattern's literals (a C scan instead of one `in` per literal)."""
    return re.compile("|".join(re.escape(hint) for hint in hints))


_HINTS: Final = {
    pattern: _hint_search(hints)
    for pattern, hints in (
        *zip(_BUILTIN, _REFERENCE_HINTS, strict=True),
        *((shape.pattern, shape.shape.hints) for shape in _SHAPES),
    )
    if hints
}
_KEY_PATTERNS: Final = _BUILTIN + catalogue_patterns()


def _clean(value: object) -> tuple[bool, bool]:
    """Whether no built-in pattern can match any string or key of `value` (one gate for
    all), and whether one of its keys is a secret key: `_clean_strings` over its strings.
    """
    strings = Strings()
    stack: list[object] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            strings.values.append(node)
        elif isinstance(node, dict):
            strings.keys.extend(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return _clean_strings(strings)


def _clean_strings(strings: Strings) -> tuple[bool, bool]:
    """The gate's verdict over strings and keys (the snapshot walk collects them), and
    whether a key is a secret key.

    The strings are joined with NUL bytes, which belong to no mark, so the gate finds a
    mark in the joined text wherever one string holds one (secret_gate.py): its verdict is
    the same over each distinct key once.
    """
    keys = set(strings.keys)  # the same few keys recur in every block: each is asked once
    joined = "\x00".join(strings.values) + "\x00" + "\x00".join(keys)
    return not may_hold_secret(joined), any(map(is_secret_key, keys))


def _redact_secret_keys(value: object) -> int:
    """Replace the members under secret keys (REDACT-2) in place; their count."""
    count = 0
    stack: list[object] = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, item in node.items():
                if is_secret_key(key):
                    node[key] = REDACTED
                    count += 1
                elif isinstance(item, (dict, list)):
                    stack.append(item)
        elif isinstance(node, list):
            stack.extend(item for item in node if isinstance(item, (dict, list)))
    return count


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


def compile_redactor(enabled: bool, custom: Sequence[str]) -> Result[Redactor, ProviderProblem]:
    """Built-ins plus translated custom patterns; nothing is compiled when disabled (REDACT-1).

    The built-ins are the reference's four patterns and then the catalogued shapes.
    """
    if not enabled:
        return Success(Redactor(enabled=False, patterns=()))
    translated = Fold.collect((compile_js_pattern(source) for source in custom), Success(()))
    return translated.map(
        lambda patterns: Redactor(
            enabled=True,
            patterns=(*_KEY_PATTERNS, *patterns),
            key_patterns=_KEY_PATTERNS,
            builtins=True,
        )
    )
