"""The closed schemas by their old name: FMT-9 lives in `header_rules`, FMT-10 in
`interaction_rules`, FMT-14 in `content_blocks`; kept so existing imports work."""

from __future__ import annotations

from cassette_format._rules import is_digest_text
from cassette_format.content_blocks import check_content_blocks
from cassette_format.header_rules import check_header
from cassette_format.interaction_rules import check_interaction, check_interaction_in_order

__all__ = [
    "check_content_blocks",
    "check_header",
    "check_interaction",
    "check_interaction_in_order",
    "is_digest_text",
]
