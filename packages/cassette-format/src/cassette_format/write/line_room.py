"""Whether a request view leaves its call a line the reader accepts (FMT-3's line bound).

Every line of a call stores its request view, and so does the error line the writer puts in
place of an outcome over the bound (`writer._substitute`). A view too long for any line
can therefore never be written: a recorder asks here before it starts the call (PROV-3),
so the call is refused with nothing written, instead of leaving a sequence gap that makes
the whole cassette unreadable.
"""

from __future__ import annotations

from typing import Final

from cassette_canonical import canonical_json
from returns.result import Failure, Result, Success

from cassette_format.problem import FormatProblem
from cassette_format.read.lines import MAX_LINE_BYTES
from cassette_format.records.model import MetadataRequestView, RequestMetadata, RequestView

__all__ = ["LINE_ROOM", "request_room"]

#: What a line needs besides its request view: digests, timing, the other members and the
#: longest error outcome the writer substitutes take a few hundred bytes; the rest is for
#: the call key and parent key, which grow about 50 bytes per level of nesting.
LINE_ROOM: Final = 1024 * 1024
#: The most UTF-8 bytes one Python character takes in canonical text (`\\u001f`, `\\ud800`).
_CHARACTER_BYTES: Final = 6
#: Room for a metadata view's members other than its strings (names, counts, flags).
_METADATA_ROOM: Final = 1024


def _metadata_bound(metadata: RequestMetadata) -> int:
    """An upper bound of a metadata view's canonical UTF-8 size, from its strings' lengths."""
    texts = [metadata.label, metadata.child_provider, metadata.child_model]
    names = metadata.tool_filter
    if names is not None:
        texts.extend(names.allow or ())
        texts.extend(names.deny or ())
    return _METADATA_ROOM + sum(
        _CHARACTER_BYTES * len(text) + 3 for text in texts if text is not None
    )


def _exact_size(view: RequestView) -> int:
    """The view's canonical UTF-8 size (lone surrogates are written escaped, CANON-4)."""
    return canonical_json(view.to_wire()).map(lambda text: len(text.encode("utf-8"))).value_or(0)


def request_room(
    view: RequestView, subject: str, *, size_bound: int | None = None
) -> Result[RequestView, FormatProblem]:
    """The view, unless no line of its call would fit under MAX_LINE_BYTES.

    `size_bound` is an upper bound of a full view's canonical size the caller already
    knows (its proved text and redaction count), so an ordinary request is never serialized
    here; without one, or past the budget, the view's size is measured.
    """
    budget = MAX_LINE_BYTES - LINE_ROOM
    if isinstance(view, MetadataRequestView):
        size_bound = _metadata_bound(view.metadata)
    if size_bound is not None and size_bound <= budget:
        return Success(view)
    size = _exact_size(view)
    if size <= budget:
        return Success(view)
    return Failure(
        FormatProblem(
            f"{subject} cannot be recorded: its stored view is {size} bytes, so no line "
            f"of the call would fit the {MAX_LINE_BYTES}-byte line bound every cassette "
            "reader enforces"
        )
    )
