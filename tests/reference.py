"""A scalar reference of the folding and answer_contains rules, written for obviousness, not speed.

The vectorized code in gradeframe is held to this with hypothesis. It uses the `regex` module,
whose lookarounds state each rule the way the rules are worded (docs/rules.md).
"""

from __future__ import annotations

import decimal
import json
import math
import unicodedata
from collections.abc import Sequence
from typing import Any

import numpy as np
import regex

from gradeframe import refusal as refusal_rules
from gradeframe.not_found import (
    ANSWER_ANYWAY_CLAUSE,
    DEFAULT_NOT_FOUND_PHRASES,
    GIVES_ANSWER,
    NEGATIVE_CLAUSE,
)

LABEL = "not_in_document"

WHITE_SPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WS_RUN = regex.compile("[" + regex.escape(WHITE_SPACE) + "]+")
_DASH = regex.compile("[\u2010\u2011\u2012\u2013\u2212]")
_SEPARATOR = regex.compile(r"(?<=\d)(?:[,\u00a0\u2007\u2009\u202f]|\{,\})(?=\d{3}(?!\d))")

# A word character: a letter, a number or a combining mark ("_" is not one).
WORD = r"[\p{L}\p{N}\p{M}]"
# A "-" is a minus sign unless it directly follows a word character.
_MINUS = r"(?<!" + WORD + ")-"


def fold(text: str | None) -> str | None:
    """Fold, step by step."""
    if text is None:
        return None
    text = unicodedata.normalize("NFC", text).lower()
    text = _DASH.sub("-", text)
    text = _SEPARATOR.sub("", text)
    return _WS_RUN.sub(" ", text).strip(" ")


def _ref_pattern(ref: str, *, whole_words: bool = False) -> str:
    left = ""
    if whole_words and regex.match(r"\p{L}", ref):
        # whole words: a letter first must not follow a word character
        left = r"(?<!" + WORD + ")"
    elif regex.match(r"\d", ref):
        # not after a digit, a ".", or a minus sign
        left = r"(?<![\d.])(?<!" + _MINUS + ")"
    elif regex.match(r"-\.?\d", ref):
        # the "-" must not follow a word character or "."
        left = r"(?<![\p{L}\p{N}\p{M}.])"
    elif regex.match(r"\.\d", ref):
        left = r"(?<!\d)"
    right = r"(?!\d)(?!\.\d)" if regex.search(r"\d\Z", ref) else ""
    if whole_words:
        return _word_right(ref, left + regex.escape(ref) + right)
    return left + regex.escape(ref) + right


def _word_right(ref: str, pattern: str) -> str:
    """Whole words: a letter last (and its combining marks) must not be followed by a word char."""
    if regex.search(r"\p{L}\p{M}*\Z", ref):
        return pattern + r"(?!" + WORD + ")"
    return pattern


def contains(folded_answer: str, folded_ref: str, *, whole_words: bool = False) -> bool:
    """Containment on folded text with numbers (and, with ``whole_words``, words) matched whole."""
    pattern = _ref_pattern(folded_ref, whole_words=whole_words)
    return regex.search(pattern, folded_answer) is not None


# The ASCII word boundary the package's phrases use, written with lookarounds.
_ASCII_WORD = "[A-Za-z0-9_]"
_ASCII_BOUNDARY = f"(?:(?<!{_ASCII_WORD})(?={_ASCII_WORD})|(?<={_ASCII_WORD})(?!{_ASCII_WORD}))"
_DEFAULT = regex.compile(
    "|".join(f"(?:{p})" for p in DEFAULT_NOT_FOUND_PHRASES).replace(r"(?-u:\b)", _ASCII_BOUNDARY)
)


def is_not_found(folded: str | None, phrases: Sequence[str] | None = None) -> bool | None:
    """A not-found report: a phrase, unless the text after the last one gives the answer anyway.

    The default phrases are the package's own (run here by the `regex` module, on every text:
    the package's keyword gate must not change the answer); the rest is written out here.
    """
    if folded is None:
        return None
    if phrases is not None:
        return any(regex.search(p, folded, flags=regex.IGNORECASE) for p in phrases)
    found = [m.group() for m in _DEFAULT.finditer(folded)]
    if not found:
        return False
    # after the last occurrence of the last phrase found, less a punctuation mark it ends with
    last = regex.sub(r"[^\p{L}\p{N}\p{M} ]\Z", "", found[-1])
    rest = folded.rsplit(last, 1)[1]
    clause = regex.search(ANSWER_ANYWAY_CLAUSE, rest)
    if clause is None:
        return True
    text = clause.group(1)
    return not (regex.search(GIVES_ANSWER, text) and not regex.search(NEGATIVE_CLAUSE, text))


# The refusal detector: the package's opening phrases, run here by the `regex` module on the
# whole text; the rest (what counts as an answer after the phrase) written out with lookarounds.
_REFUSAL = regex.compile(
    "|".join(f"(?:{p})" for p in refusal_rules.DEFAULT_REFUSAL_PHRASES).replace(
        r"(?-u:\b)", _ASCII_BOUNDARY
    )
)
_CONTRAST = (
    "but|however|although|though|yet|whereas|instead|nevertheless|nonetheless|still|that said"
    "|having said that|even so"
)
# a later sentence, or a clause from ";" or a word of contrast, up to the next clause end
_CLAUSE = regex.compile(
    r"(?:[.!?]+ |;|(?<![A-Za-z0-9_])(?:" + _CONTRAST + r")(?![A-Za-z0-9_]))[^.!?;]*"
)
_GIVES = regex.compile(refusal_rules.GIVES_ANSWER.replace(r"(?-u:\b)", _ASCII_BOUNDARY))
_ABOUT = regex.compile(refusal_rules.ABOUT_THE_REFUSAL.replace(r"(?-u:\b)", _ASCII_BOUNDARY))
_ANSWER_IS = regex.compile(r"(?<![A-Za-z0-9_])answer(?: is| was| would be| will be|:| =)")


def _answers(clause: str) -> bool:
    """A later sentence answers when it says anything that is not about the refusal; a contrast
    clause of the refusal's own sentence ("..., but it is Lyon") only when it states something."""
    if _ABOUT.search(clause):
        return False
    if clause[0] in ".!?;":
        return regex.search(r"[\p{L}\p{N}]", clause) is not None
    return _GIVES.search(clause) is not None


def is_refusal(folded: str | None, phrases: Sequence[str] | None = None) -> bool | None:
    """A refusal: the text opens with a phrase, and no clause after it gives an answer."""
    if folded is None:
        return None
    if phrases is not None:
        return any(regex.search(p, folded, flags=regex.IGNORECASE) for p in phrases)
    opening = _REFUSAL.match(folded)
    if opening is None:
        return False
    rest = folded[opening.end() :]
    answered = any(_answers(clause) for clause in _CLAUSE.findall(rest))
    if answered or _ANSWER_IS.search(rest):
        return False
    return not is_not_found(folded)  # a report about the document is no refusal


def number_text(value: Any) -> str | None:
    """A number in plain positional digits: the shortest digits that read back in its width."""
    if isinstance(value, bool | np.bool_):
        raise TypeError(value)
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, decimal.Decimal):
        # SPEC v3 §2: a Decimal keeps its scale ("2.50" stays "2.50")
        return format(abs(value) if value.is_zero() else value, "f")
    else:
        number = float(value)
        if math.isnan(number) or math.isinf(number):
            return None
        shortest = repr(np.float32(value)) if isinstance(value, np.float32) else repr(number)
        shortest = shortest.removeprefix("np.float32(").removesuffix(")")
        digits = decimal.Decimal(shortest)
    text = format(digits, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def ref_text(value: Any) -> str | None:
    """An acceptable answer as text: numbers in plain digits."""
    if value is None or isinstance(value, str):
        return value
    return number_text(value)


class _NotAList(ValueError):
    """A JSON value that a JSON-list cell may not hold."""


def _json_number(literal: str) -> str:
    # The digits as written (never rounded to a float), in plain positional digits; an exponent
    # of more than three digits is not written out (the cell is then one answer, as written).
    exponent = regex.search(r"[eE][+-]?(\d+)$", literal)
    if exponent is not None and len(exponent.group(1)) > 3:
        raise _NotAList(literal)
    # written as a number column's value is (12400.0 is "12400"), not as a Decimal column's,
    # which keeps its scale
    text = format(decimal.Decimal(literal), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _refuse(value: Any) -> Any:
    raise _NotAList(value)


def json_list(refs: str | None) -> list[str] | None:
    """A String acceptable answer that is a JSON array of strings and numbers, as that list.

    None for anything else ("[citation needed]", "[1, 2", ``[null]``, an object inside).
    """
    if refs is None:
        return None
    text = refs.strip(WHITE_SPACE)  # Unicode white space, as fold's (not str.strip's \x1c-\x1f)
    if not text.startswith("["):
        return None
    try:
        value = json.loads(
            text, parse_float=_json_number, parse_int=_json_number, parse_constant=_refuse
        )
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None  # null, true, objects and arrays are no acceptable answers
    if any(regex.search(r"[\ud800-\udfff]", v) for v in value):
        return None  # a lone surrogate escape
    return value


def refs_given(refs: Any) -> list[str | None]:
    """The acceptable answers as given: a list, a JSON-list String, or one value."""
    if isinstance(refs, list | tuple):
        return [ref_text(r) for r in refs]
    if isinstance(refs, str):
        listed = json_list(refs)
        if listed is not None:
            return list(listed)
    return [ref_text(refs)]


def _refs_list(refs: Any) -> list[str]:
    folded = [fold(r) for r in refs_given(refs)]
    return [r for r in folded if r]


def explain(outcome: str | None, refs: Any) -> dict[str, str | None]:
    """``matched`` and ``near_miss`` of one row, as docs/rules.md words them."""
    given = [r for r in refs_given(refs) if fold(r)]
    if outcome is None or any(fold(r) == LABEL for r in given):
        return {"matched": None, "near_miss": None}
    matched = next((r for r in given if contains(outcome, fold(r))), None)
    near = None
    if matched is None:
        near = next((r for r in given if fold(r) in outcome), None)
    return {"matched": matched, "near_miss": near}


BUDGET = ("cost_cap_reached", "call_cap_reached", "limit_refused")
# The status vocabulary, written out (compared trimmed, in lower case); any other value is a
# normal finish.
ERROR_STATUSES = {"error", "failed", "failure", "exception", "timeout"}
REFUSAL_STATUSES = {"refused", "refusal", "content_filter"}
BUDGET_STATUSES = {"length", "max_tokens"}
# whole words, any case; "_" is a word character here ("no_cost_cap_reached" is another word)
_BUDGET = regex.compile(r"(?i)(?<![\w])(?:" + "|".join(BUDGET) + r")(?![\w])")


def _budget_notes(notes: Any) -> bool:
    if notes is None:
        return False
    items = notes if isinstance(notes, list | tuple) else [notes]
    return any(n is not None and _BUDGET.search(n) for n in items)


def _refusal_trace(trace: Any) -> bool:
    if trace is None:
        return False
    items = trace if isinstance(trace, list | tuple) else [trace]
    for step in items:
        reason = step.get("finish_reason") if isinstance(step, dict) else step
        if isinstance(reason, str) and regex.search(r"(?i)\b(?:refusal|content_filter)\b", reason):
            return True
    return False


def answer_contains(
    answer: Any,
    refs: Any,
    *,
    partial: Any = None,
    notes: Any = None,
    trace: Any = None,
    status: Any = None,
    failure_kind: Any = None,
    not_found: bool | None = None,
    phrases: Sequence[str] | None = None,
    whole_words: bool = False,
    refusal: bool | Sequence[str] | None = None,
    refused: bool | None = None,
    explained: bool = False,
) -> dict[str, Any]:
    """One row of answer_contains: `answer` is a string, a non-string, or a dict output record."""
    record = answer if isinstance(answer, dict) else {}
    if isinstance(answer, dict):
        value = record.get("answer")
        text = value if value is not None else record.get("text")
    else:
        text = answer
    if not isinstance(text, str):
        text = None

    def pick(flat: Any, field: str) -> Any:
        return flat if flat is not None else record.get(field)

    partial = pick(partial, "partial")
    notes = pick(notes, "notes")
    trace = pick(trace, "trace")
    status = pick(status, "status")
    carried = pick(failure_kind, "failure_kind")
    carried = carried if isinstance(carried, str) and carried.strip() else None
    status = status.strip().lower() if isinstance(status, str) else None

    outcome = fold(text)
    usable = _refs_list(refs)
    unanswerable = LABEL in usable
    found = outcome is not None and any(
        contains(outcome, r, whole_words=whole_words) for r in usable if r != LABEL
    )
    reported = not_found if not_found is not None else is_not_found(outcome, phrases)
    reported = bool(reported)

    error = status in ERROR_STATUSES
    no_text = not outcome
    budget = (bool(partial) and _budget_notes(notes)) or status in BUDGET_STATUSES
    said_no = bool(refused)  # the user's own judgement (refusal=<column>)
    if refusal is True and outcome is not None and not found:
        said_no = bool(is_refusal(outcome))
    elif isinstance(refusal, list | tuple) and outcome is not None and not found:
        said_no = bool(is_refusal(outcome, refusal))
    refusal = _refusal_trace(trace) or status in REFUSAL_STATUSES or said_no

    correct = (
        bool(usable)
        and carried is None
        and not error
        and not no_text
        and (found or (unanswerable and reported and not budget and not refusal))
    )
    if correct:
        kind = None
    elif not usable:
        kind = "no_reference"
    elif carried is not None:
        kind = carried
    elif error:
        kind = "error"
    elif budget:
        kind = "budget_stop"
    elif refusal:
        kind = "refusal"
    elif no_text:
        kind = "parse_failure"
    elif not unanswerable and reported:
        kind = "not_in_document"
    else:
        kind = "wrong"
    row = {"correct": correct, "failure_kind": kind, "outcome": outcome}
    return {**row, **explain(outcome, refs)} if explained else row
