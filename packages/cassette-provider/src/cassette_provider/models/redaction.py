"""Redaction of what a session log stores: requests, response chunks and response meta.

The same `Redactor` cassettes use (reference patterns, the credential-shape catalogue, custom
patterns; strings and object keys). Values are copied before redaction, so the caller's
request and the chunks handed to the client stay untouched. Strings holding a JSON object
or array (an SSE event's `data`, a tool call's `arguments`) are also redacted as JSON, so
keys and escaped text inside them are caught; such a string is rewritten canonically only
when something in it was redacted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from cassette_canonical import JsonValue, canonical_json, parse_json
from cassette_format.problem import FormatProblem
from cassette_topology.sessions import SESSION_CONFIG
from returns.pipeline import is_successful

from cassette_provider.contract.errors import session_value_or_raise
from cassette_provider.live.js_regex import compile_js_pattern
from cassette_provider.live.redact import Redactor, compile_redactor
from cassette_provider.live.snapshot import snapshot
from cassette_provider.models.stream_redaction import redact_across

#: The member of an HTTP model request holding the URL query, stored without its `?`.
_QUERY: str = "query"


@dataclass(frozen=True, slots=True)
class SessionRedaction:
    """A compiled redactor for session logs; `enabled=False` stores values as they are."""

    redactor: Redactor

    @property
    def enabled(self) -> bool:
        """Whether anything is redacted at all."""
        return self.redactor.enabled

    def value(self, value: JsonValue) -> tuple[JsonValue, int]:
        """A redacted copy of a chunk or meta object and the match count."""
        if not self.enabled:
            return value, 0
        # a value that is not lossless is kept: the encoder refuses the log, nothing is written
        return (
            snapshot(value).map(lambda copied: self._redacted(copied, value)).value_or((value, 0))
        )

    def _redacted(self, copied: object, original: JsonValue) -> tuple[JsonValue, int]:
        """Redact a private copy: embedded JSON strings first, then the copy itself."""
        embedded = self._embedded_json(copied)
        redacted, count = self.redactor.redact(copied).value_or((original, 0))
        return cast(JsonValue, redacted), count + embedded

    def _embedded_json(self, root: object) -> int:
        """Redact, in place, strings of `root` holding a JSON object or array; the count.

        JSON nested in such a string (tool-call `arguments` inside SSE `data`) is found by
        the same walk; strings are rewritten innermost first, so an outer one holds the
        redacted inner text.
        """
        stack: list[tuple[object, int]] = [(root, -1)]
        found: list[tuple[dict[str, object] | list[object], str | int, JsonValue, int]] = []
        while stack:
            node, owner = stack.pop()
            slots: list[tuple[dict[str, object] | list[object], str | int, object]] = []
            if isinstance(node, dict):
                slots = [(node, key, item) for key, item in node.items()]
            elif isinstance(node, list):
                slots = [(node, index, item) for index, item in enumerate(node)]
            for holder, slot, item in slots:
                if isinstance(item, dict | list):
                    stack.append((item, owner))
                elif isinstance(item, str) and item[:1] in ("{", "["):
                    embedded = parse_json(item).value_or(None)
                    if isinstance(embedded, dict | list):
                        found.append((holder, slot, embedded, owner))
                        stack.append((embedded, len(found) - 1))
        count = 0
        changed = [False] * len(found)
        for index in range(len(found) - 1, -1, -1):
            holder, slot, parsed, owner = found[index]
            matches = self.redactor.redact(parsed).value_or((parsed, 0))[1]
            if not matches and not changed[index]:
                continue
            count += matches
            text = canonical_json(parsed).value_or(None)
            if text is not None:
                holder[slot] = text  # type: ignore[index]
                if owner >= 0:
                    changed[owner] = True
        return count

    def chunks(self, chunks: list[JsonValue]) -> tuple[list[JsonValue], int]:
        """Redacted copies of a response's chunks: across their boundaries, then each alone."""
        if not self.enabled:
            return chunks, 0
        copies = [snapshot(chunk).value_or(chunk) for chunk in chunks]
        across = redact_across(copies, self.redactor.redact_text)
        stored: list[JsonValue] = []
        count = across
        for copy in copies:
            value, found = self.value(cast(JsonValue, copy))
            stored.append(value)
            count += found
        return stored, count

    def request(self, request: JsonValue) -> tuple[JsonValue, int]:
        """A redacted copy of a request; a URL query is redacted as `?query` (`?key=…`)."""
        stored, count = self.value(request)
        if not self.enabled or not isinstance(stored, dict):
            return stored, count
        query = stored.get(_QUERY)
        if isinstance(query, str):
            text, found = self.redactor.redact_text(f"?{query}")
            stored[_QUERY] = text.removeprefix("?")
            count += found
        return stored, count


def session_redaction(enabled: bool, patterns: Sequence[str] = ()) -> SessionRedaction:
    """Compile the session-log redaction, or fail with SESSION_CONFIG naming the problem."""
    compiled = compile_redactor(enabled, tuple(patterns))
    return session_value_or_raise(
        compiled.map(SessionRedaction).alt(lambda _: _invalid_pattern(patterns))
    )


def _invalid_pattern(patterns: Sequence[str]) -> FormatProblem:
    """SESSION_CONFIG naming the first pattern that does not compile (1-based), not its text."""
    index = next((i for i, p in enumerate(patterns) if not is_successful(compile_js_pattern(p))), 0)
    return FormatProblem(
        f"redaction pattern {index + 1} of {len(patterns)} is invalid or outside the "
        "supported JavaScript subset",
        code=SESSION_CONFIG,
    )
