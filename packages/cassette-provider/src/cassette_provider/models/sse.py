"""Server-sent events: split a byte stream into events and write recorded events back."""

from __future__ import annotations

from cassette_canonical import JsonValue


class SseDecoder:
    """Incremental SSE framing: feed bytes, get complete events as `{"data", "event", "id"}`.

    Only the framing is interpreted (fields and blank-line boundaries), never the payload, so
    a replayed stream hands the client the same event data the upstream sent. Linear in the
    bytes fed however they are chunked: each chunk is searched once from where the last line
    ended, and an unfinished line waits in pieces (never re-copied or re-searched), so one
    huge chunk of many lines, or one huge line in many chunks, cannot stall a recording.
    """

    def __init__(self) -> None:
        self._pending: list[bytes] = []  # the unfinished line, in the pieces it came in
        self._fields: dict[str, list[str]] = {}

    def feed(self, data: bytes) -> list[dict[str, JsonValue]]:
        """Consume bytes; answer the events they complete."""
        events: list[dict[str, JsonValue]] = []
        start = 0
        while True:
            cut = data.find(b"\n", start)
            if cut < 0:
                if start < len(data):
                    self._pending.append(data[start:])
                return events
            raw = data[start:cut]
            if self._pending:
                raw = b"".join([*self._pending, raw])
                self._pending = []
            start = cut + 1
            event = self._line(raw.removesuffix(b"\r").decode("utf-8", errors="replace"))
            if event is not None:
                events.append(event)

    def close(self) -> list[dict[str, JsonValue]]:
        """Flush a final event the stream did not terminate with a blank line."""
        events = self.feed(b"\n") if self._pending else []
        final = self._line("")
        return events if final is None else [*events, final]

    def _line(self, line: str) -> dict[str, JsonValue] | None:
        """Apply one line; a blank line dispatches the pending event."""
        if line == "":
            if not self._fields:
                return None
            event: dict[str, JsonValue] = {
                name: "\n".join(values) for name, values in self._fields.items()
            }
            self._fields = {}
            return event
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if name in ("data", "event", "id", "retry"):
            self._fields.setdefault(name, []).append(value.removeprefix(" "))
        return None


def encode_event(event: JsonValue) -> bytes:
    """Write one recorded event back in SSE framing, terminated by a blank line."""
    lines: list[str] = []
    if isinstance(event, dict):
        for name in ("event", "id", "retry"):
            value = event.get(name)
            if isinstance(value, str):
                lines.extend(f"{name}: {part}" for part in value.split("\n"))
        data = event.get("data")
        if isinstance(data, str):
            lines.extend(f"data: {part}" for part in data.split("\n"))
    return ("\n".join(lines) + "\n\n").encode("utf-8")
