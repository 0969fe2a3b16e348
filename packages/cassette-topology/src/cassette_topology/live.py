"""The facts of one live call that topology needs: who asked, and the two fingerprints."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from cassette_canonical import fingerprint, fingerprint_bytes
from cassette_format.records.identity import CallGroup
from returns.result import Result, Success

from cassette_topology.errors import NOT_CANONICAL, TopologyError

#: The `session.header.origin` of a parent that is itself a subagent (TOPO-2 case 2).
SUBAGENT_ORIGIN: Final = "subagent"
#: The envelope kind wrapped around a normalized parent context before hashing (NORM-11).
PARENT_CONTEXT_KIND: Final = "dsh-subagent/parent-context"
#: The envelope's members, in canonical (sorted) order.
_KIND: Final = "kind"
_VALUE: Final = "value"


@dataclass(frozen=True, slots=True)
class LiveParent:
    """A live parent agent as topology sees it: its id (`String(id)`) and its session origin."""

    id: str
    origin: str | None = None

    @property
    def is_subagent(self) -> bool:
        """Whether the harness says this parent is itself a subagent."""
        return self.origin == SUBAGENT_ORIGIN


@dataclass(frozen=True, slots=True)
class LiveCall:
    """One live start request, normalized and fingerprinted by the caller.

    `request` is the normalized request (NORM-2); it is read only for its label and, when a
    diagnosis is needed, for its metadata view. It is never copied into a diagnostic.
    """

    parent: LiveParent
    parent_context_fingerprint: str
    request_fingerprint: str
    request: Mapping[str, object]
    #: The label the call key shows when it must differ from the request's: the recorder
    #: passes the redacted label, so a secret in a label never reaches a call key (issue 14).
    shown_label: str | None = None

    @property
    def label(self) -> str | None:
        """The label of the call key: `shown_label`, else the request's label if a string."""
        if self.shown_label is not None:
            return self.shown_label
        label = self.request.get("label")
        return label if isinstance(label, str) else None

    def group_under(self, parent_key: str) -> CallGroup:
        """This call's parent-context/request group once its parent's key is resolved."""
        return CallGroup(parent_key, self.parent_context_fingerprint, self.request_fingerprint)


def parent_context_fingerprint(parent_context: object) -> Result[str, TopologyError]:
    """Digest of a normalized parent context inside its kind envelope (NORM-11)."""
    return fingerprint({_KIND: PARENT_CONTEXT_KIND, _VALUE: parent_context}).alt(
        lambda error: TopologyError(
            NOT_CANONICAL, "parent context is not lossless plain JSON", canonical_code=error.code
        )
    )


def request_fingerprint(request: Mapping[str, object]) -> Result[str, TopologyError]:
    """Digest of the canonical normalized request (NORM-4)."""
    return fingerprint(request).alt(
        lambda error: TopologyError(
            NOT_CANONICAL,
            "subagent cassette request is not lossless plain JSON",
            canonical_code=error.code,
        )
    )


#: The canonical text around a parent context's own canonical text in its envelope.
_ENVELOPE_HEAD: Final = f'{{"{_KIND}":"{PARENT_CONTEXT_KIND}","{_VALUE}":'.encode("ascii")
_ENVELOPE_TAIL: Final = b"}"


def live_call(
    parent: LiveParent,
    request: Mapping[str, object],
    parent_context: object,
    *,
    request_text: bytes | None = None,
    context_text: bytes | None = None,
    shown_label: str | None = None,
) -> Result[LiveCall, TopologyError]:
    """Fingerprint a normalized request and parent context into the facts of one live call.

    `request_text` and `context_text`, their canonical texts where the caller proved them
    (the recorder's snapshot walk does, issue 24), are hashed as they are; `shown_label` is
    the call's `LiveCall.shown_label`.
    """
    if request_text is not None and context_text is not None:
        context_digest = fingerprint_bytes(_ENVELOPE_HEAD + context_text + _ENVELOPE_TAIL)
        request_digest = fingerprint_bytes(request_text)
        return Success(LiveCall(parent, context_digest, request_digest, request, shown_label))
    return request_fingerprint(request).bind(
        lambda request_digest: parent_context_fingerprint(parent_context).map(
            lambda context_digest: LiveCall(
                parent, context_digest, request_digest, request, shown_label
            )
        )
    )
