"""The recording provider: admits each start and records it as one RecordedRun (PROV-1..PROV-3)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cassette_format.records import RequestStorage
from cassette_format.result_edge import or_raise
from cassette_topology import TopologyTracker, live_call
from cassette_topology.exceptions import value_or_raise
from returns.functions import identity

from cassette_provider.contract.clock import SYSTEM_CLOCK, Clock
from cassette_provider.contract.errors import NO_UPSTREAM, ProviderProblem, provider_error
from cassette_provider.contract.protocol import (
    ProviderIdentity,
    StartRequest,
    SubagentProvider,
    SubagentRun,
)
from cassette_provider.contract.sessions import SessionBridge
from cassette_provider.live.normalize import (
    live_parent,
    normalize_parent_context_text,
    normalize_request_text,
)
from cassette_provider.live.redact import Redactor
from cassette_provider.record.ledger import Ledger
from cassette_provider.record.request_view import request_view
from cassette_provider.record.run import DISPOSE_TIMEOUT, RecordedRun

if TYPE_CHECKING:
    from cassette_format.write.writer import CassetteWriter

    from cassette_provider.contract.registry import ProviderRegistry

__all__ = ["DISPOSE_TIMEOUT", "RecordedRun", "RecordingProvider"]


class RecordingProvider(ProviderIdentity):
    """Registers beside the upstream; forwards each start and records its outcome."""

    def __init__(
        self,
        *,
        name: str,
        upstream: SubagentProvider,
        registry: ProviderRegistry,
        writer: CassetteWriter,
        redactor: Redactor,
        storage: RequestStorage,
        tracker: TopologyTracker,
        sessions: SessionBridge,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._name = name
        self._upstream = upstream
        self._upstream_name = upstream.name
        self._registry = registry
        self._storage = storage
        self._tracker = tracker
        self._capabilities = upstream.capabilities
        self._inherits = upstream.inherits_parent_context
        self._ledger = Ledger(writer, redactor, tracker, clock, sessions)

    @property
    def tracker(self) -> TopologyTracker:
        """The topology tracker reserving this recording's identities (read it, do not drive it)."""
        return self._tracker

    @property
    def active(self) -> int:
        """Admitted starts whose line has not settled yet."""
        return self._ledger.active

    async def when_idle(self) -> None:
        """Wait until every admitted start has persisted (PROV-10)."""
        await self._ledger.when_idle()

    async def cut(self) -> None:
        """Dispose timeout: end every unsettled call with a cut line, wait for all lines."""
        await self._ledger.cut()

    def _admit(self, request: StartRequest) -> RecordedRun:
        """Check the upstream (PROV-2), normalize, fingerprint once, view, reserve (PROV-3).

        Any failure raises before anything is counted, reserved or written.
        """
        if self._registry.get(self._upstream_name) is not self._upstream:
            raise provider_error(
                ProviderProblem(
                    f'upstream subagent provider "{self._upstream_name}" is no longer registered',
                    NO_UPSTREAM,
                )
            )
        redactor = self._ledger.redactor
        # One walk each checks and proves the canonical text to hash (issue 24); it copies
        # only the request a full view keeps: the rest is read here and dropped.
        full = self._storage == "full"
        body, body_text = or_raise(normalize_request_text(request, copied=full), identity)
        context, context_text = or_raise(
            normalize_parent_context_text(request.parent, self._inherits, copied=False), identity
        )
        label = body.get("label")
        # Issue 14: the call key's label segment is cut from the redacted label.
        shown = (
            redactor.redact_text(label)[0] if isinstance(label, str) and redactor.enabled else None
        )
        call = value_or_raise(
            live_call(
                live_parent(request.parent),
                body,
                context,
                request_text=body_text,
                context_text=context_text,
                shown_label=shown,
            )
        )
        proved = body_text is not None
        text_size = None if body_text is None else len(body_text)
        view = or_raise(  # owns `body` now
            request_view(body, self._storage, redactor, proved=proved, text_size=text_size),
            identity,
        )
        reserved = value_or_raise(self._tracker.reserve(call))
        return RecordedRun(self._ledger, reserved, view, request.signal)

    async def start(self, request: StartRequest) -> SubagentRun:
        """Admit, then start the upstream with the original request; the recorded run."""
        return await self._admit(request).launch(self._upstream, request)
