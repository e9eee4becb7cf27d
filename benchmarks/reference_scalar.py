"""A scalar, per-row reference for answer_contains (SPEC.md §2), for the benchmark only.

This is what a user would write without gradeframe: a Python loop over rows, folding each
answer with the ``regex`` module and searching each acceptable answer with lookarounds. It covers
the rules that depend on ``answer`` and ``refs`` only (no struct records, status, trace or
notes), which is all the benchmark frames hold. Compiled patterns are cached per acceptable
answer, as any reasonable scalar implementation would.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

import regex

from gradeframe.answer import DEFAULT_NOT_FOUND_PHRASES

LABEL = "not_in_document"

_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2212", "-"))
_SEPARATOR = regex.compile(r"(?<=\d)[,\u00a0\u2007\u2009\u202f](?=\d{3}(?!\d))")
_WHITE = regex.compile(r"\p{White_Space}+")
_NOT_FOUND = regex.compile("|".join(f"(?:{p})" for p in DEFAULT_NOT_FOUND_PHRASES))

# Left boundaries (SPEC.md §2). A "-" is a minus sign unless it directly follows a letter/digit.
_AFTER_NO_NUMBER = r"(?<![\d.])(?<!(?<![\p{L}\d])-)"
_MINUS_START = r"(?<![\p{L}\d.])"
_POINT_START = r"(?<!\d)"
_NUMBER_END = r"(?!\d)(?!\.\d)"


def fold(text: str | None) -> str | None:
    """Fold one text: lower case, dashes, thousands separators, white space."""
    if text is None:
        return None
    text = text.lower().translate(_DASHES)
    text = _SEPARATOR.sub("", text)
    return _WHITE.sub(" ", text).strip(" ")


@lru_cache(maxsize=200_000)
def _pattern(folded_ref: str) -> regex.Pattern[str]:
    left = ""
    if folded_ref[:1].isdigit():
        left = _AFTER_NO_NUMBER
    elif folded_ref[:1] == "-" and folded_ref[1:2].isdigit():
        left = _MINUS_START
    elif folded_ref[:1] == "." and folded_ref[1:2].isdigit():
        left = _POINT_START
    right = _NUMBER_END if folded_ref[-1:].isdigit() else ""
    return regex.compile(left + regex.escape(folded_ref) + right)


def is_not_found(folded: str | None) -> bool:
    return folded is not None and _NOT_FOUND.search(folded) is not None


def score_row(
    answer: str | None, refs: Iterable[str | None] | str | None
) -> tuple[bool, str | None]:
    """Return (correct, failure_kind) for one row."""
    if refs is None:
        refs = []
    elif isinstance(refs, str):
        refs = [refs]
    folded_refs = [f for f in (fold(r) for r in refs) if f]
    has = bool(folded_refs)
    unanswerable = LABEL in folded_refs
    text = fold(answer)
    parse_failure = text is None or text == ""
    found = not parse_failure and any(
        _pattern(r).search(text) is not None for r in folded_refs if r != LABEL
    )
    not_found = not parse_failure and is_not_found(text)
    correct = has and not parse_failure and (found or (unanswerable and not_found))
    if correct:
        return True, None
    if not has:
        return False, "no_reference"
    if parse_failure:
        return False, "parse_failure"
    if not unanswerable and not_found:
        return False, "not_in_document"
    return False, "wrong"


def score(
    answers: Sequence[str | None], refs: Sequence[Sequence[str | None] | str | None]
) -> tuple[list[bool], list[str | None]]:
    """Score columns of answers and acceptable answers, one row at a time."""
    correct: list[bool] = []
    kinds: list[str | None] = []
    for answer, row_refs in zip(answers, refs, strict=True):
        c, k = score_row(answer, row_refs)
        correct.append(c)
        kinds.append(k)
    return correct, kinds
