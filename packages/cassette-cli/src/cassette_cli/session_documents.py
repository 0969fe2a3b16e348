"""Metadata-only documents of verified session logs: scripts, counts, fingerprints, no bodies."""

from __future__ import annotations

import os
from collections.abc import Sequence

from cassette_topology.sessions import SessionLog, derive_script, parse_session_log_name

from cassette_cli.display import display
from cassette_cli.documents import Document, count_text, documents, text

__all__ = ["directory_document", "session_document", "session_lines"]


def _role_and_generation(source: str | None) -> dict[str, object]:
    """The role and generation a canonical file name states; nothing for other names."""
    parsed = parse_session_log_name(os.path.basename(source or ""))
    if parsed is None:
        return {}
    return {"role": parsed.role, "generation": parsed.generation}


def session_document(log: SessionLog, ordinal: int | None = None) -> dict[str, object]:
    """One session's script as metadata: header facts, call counts, chunk counts, fingerprints."""
    header = log.header
    script = derive_script(log, 0 if ordinal is None else ordinal)
    document: dict[str, object] = {"kind": "session-log"}
    if log.source is not None:
        document["file"] = log.source
    document["sessionId"] = header.id
    document["createdAt"] = header.created_at
    document.update(_role_and_generation(log.source))
    if ordinal is not None:
        document["harvestOrdinal"] = ordinal
    for key, value in (
        ("parentSession", header.parent_session),
        ("callKey", header.call_key),
        ("firstCallOrdinal", header.first_call_ordinal),
        ("seedCalls", header.seed_calls),
    ):
        if value is not None:
            document[key] = value
    streamed = sum(1 for call in log.calls if call.streamed)
    document["calls"] = len(log.calls)
    document["scriptCalls"] = len(script.calls)
    document["streamedCalls"] = streamed
    document["unstreamedCalls"] = len(log.calls) - streamed
    document["chunks"] = sum(len(call.chunks) for call in log.calls)
    document["redactedCalls"] = sum(
        1 for call in log.calls if call.request_redactions or call.response_redactions
    )
    if script.first_binding_fingerprint is not None:
        document["firstRequestBindingFingerprint"] = script.first_binding_fingerprint
        document["firstRequestFingerprint"] = script.calls[0].request_fingerprint
    document["callList"] = [
        {
            "call": call.index,
            "seeded": call.index <= (header.seed_calls or 0),
            "streamed": call.streamed,
            "chunks": len(call.chunks),
            "requestFingerprint": call.request_fingerprint,
        }
        for call in log.calls
    ]
    return document


def directory_document(directory: str, logs: Sequence[SessionLog]) -> dict[str, object]:
    """A harvested directory: every selected session in harvest order (primary first)."""
    sessions = [session_document(log, ordinal) for ordinal, log in enumerate(logs)]
    return {
        "kind": "session-log-directory",
        "directory": os.path.abspath(directory),
        "sessions": sessions,
        "harvestOrder": [log.header.id for log in logs],
    }


def _optional(document: Document, key: str) -> str:
    value = document.get(key)
    if isinstance(value, str):
        return f"  {key}={display(value)}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"  {key}={value}"
    return ""


def session_lines(document: Document, *, show_calls: bool) -> list[str]:
    """Human lines for one session document; every string from the file is display-escaped."""
    role = ""
    if "role" in document:
        role = (
            f"  role={count_text(document, 'role')} generation={count_text(document, 'generation')}"
        )
    facts = "".join(
        _optional(document, key)
        for key in ("harvestOrdinal", "parentSession", "callKey", "firstCallOrdinal", "seedCalls")
    )
    lines = [
        f"Session log: {display(text(document, 'file'))}",
        f"  session {display(text(document, 'sessionId'))}{role}{facts}",
        f"  created {display(text(document, 'createdAt'))}",
        f"  calls {count_text(document, 'calls')} (script {count_text(document, 'scriptCalls')}, "
        f"streamed {count_text(document, 'streamedCalls')}, "
        f"not streamed {count_text(document, 'unstreamedCalls')}), "
        f"chunks {count_text(document, 'chunks')}, "
        f"redacted calls {count_text(document, 'redactedCalls')}",
    ]
    if "firstRequestBindingFingerprint" in document:  # absent when the script is empty
        first = text(document, "firstRequestBindingFingerprint")
        lines.append(f"  first request binding fingerprint {display(first)}")
    if show_calls:
        for call in documents(document, "callList"):
            mode = "streamed" if call.get("streamed") is True else "not streamed"
            seeded = " (seeded from parent)" if call.get("seeded") is True else ""
            lines.append(
                f"    call {count_text(call, 'call')}: {mode}, {count_text(call, 'chunks')} "
                f"chunk(s), request {display(text(call, 'requestFingerprint'))}{seeded}"
            )
    return lines
