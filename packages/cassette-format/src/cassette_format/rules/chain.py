"""The reference's messages of the chain and whole-file rules (FMT-9 rule 18, FMT-10 rule 10,
FMT-15..17), and the writer's refusals of what those rules would reject (WRITE-7).

The checks live where lines are linked (`read.chain`, `read.links`); only their words are
here, beside the ordered rules' messages, so every reference message is written in `rules/`.
Plain functions and strings: `cassette verify` loads this module without `returns`.
"""

from __future__ import annotations

from typing import Final

from cassette_format.problem import FormatProblem

__all__ = [
    "DUPLICATE_CALL_KEY",
    "DUPLICATE_OCCURRENCE",
    "DUPLICATE_SEQUENCE",
    "EMPTY",
    "LINKED",
    "LOSSY",
    "OTHER_STORAGE",
    "header_hash_mismatch",
    "line_hash_mismatch",
    "line_refusal",
    "missing_occurrence",
    "missing_sequence",
    "write_refusal",
]

#: FMT-16's rules by code: the record links (LINKED) or breaks one of these.
LINKED: Final = 0
DUPLICATE_CALL_KEY: Final = 1
DUPLICATE_OCCURRENCE: Final = 2
OTHER_STORAGE: Final = 3
DUPLICATE_SEQUENCE: Final = 4

LOSSY: Final = "cassette record is not lossless canonical JSON"
EMPTY: Final = "cassette is empty"


def header_hash_mismatch() -> FormatProblem:
    """FMT-9 rule 18."""
    return FormatProblem("header hash mismatch", line=1)


def line_hash_mismatch(number: int) -> FormatProblem:
    """FMT-10 rule 10."""
    return FormatProblem(f"line {number} hash mismatch", line=number)


def line_refusal(
    code: int, number: int, words: tuple[int, str, int], storage: str
) -> FormatProblem:
    """The reference's message for line `number` breaking FMT-16 rule `code`.

    `words` are the record's sequence, call key and occurrence (`read.links.refusal_words`).
    """
    sequence, call_key, occurrence = words
    if code == OTHER_STORAGE:
        message = f'line {number}.request.storage must match header.requestStorage "{storage}"'
    elif code == DUPLICATE_SEQUENCE:
        message = f"line {number} duplicates sequence {sequence}"
    elif code == DUPLICATE_CALL_KEY:
        message = f'line {number} duplicates call key "{call_key}"'
    else:
        message = (
            f"line {number} duplicates occurrence {occurrence} for one parent-context/request group"
        )
    return FormatProblem(message, line=number)


def write_refusal(code: int, words: tuple[int, str, int], storage: str) -> FormatProblem:
    """Why the writer refuses a record the loader would reject beside what was written."""
    sequence, call_key, occurrence = words
    if code == OTHER_STORAGE:
        message = f'interaction request.storage must match header.requestStorage "{storage}"'
    elif code == DUPLICATE_SEQUENCE:
        message = f"interaction sequence {sequence} was already written"
    elif code == DUPLICATE_CALL_KEY:
        message = f'interaction call key "{call_key}" was already written'
    else:
        message = (
            f"interaction occurrence {occurrence} was already written "
            "for one parent-context/request group"
        )
    return FormatProblem(message)


def missing_sequence(sequence: int) -> FormatProblem:
    """FMT-17: sequences are exactly 1..n."""
    return FormatProblem(f"cassette is missing sequence {sequence}")


def missing_occurrence(occurrence: int) -> FormatProblem:
    """FMT-17: each group's occurrences are exactly 1..n."""
    return FormatProblem(
        f"cassette parent-context/request group is missing occurrence {occurrence}"
    )
