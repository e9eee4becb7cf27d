"""A scalar reference of extract_number, written for obviousness, not speed.

The rules, stated with the `regex` module's lookbehind: fold the text (the scalar fold of
tests/reference.py; LaTeX's "{,}" and "\\," first become ","), then read every number left
to right. A number is digits (any Unicode decimal digit; ``float`` reads them all) with an
optional decimal part and exponent, or a bare decimal part; a token with several decimal points
is no number; a "-" (and a currency sign after it) directly before it is a minus sign unless
the "-" follows a letter, a digit or a mark.
"""

from __future__ import annotations

import regex

from tests.reference import fold

_NUMBER = regex.compile(
    r"(?P<minus>(?<![\p{L}\p{N}\p{M}])-\p{Sc}?)?"
    r"(?P<digits>(?:\d+(?:\.\d+)*|\.\d+(?:\.\d+)*)(?:e[+-]?\d+)?)"
)


def numbers(text: str | None) -> list[float]:
    """Every number of a text, in order."""
    if text is None:
        return []
    found = []
    text = regex.sub(r"\{,\}|\\,", ",", text)  # LaTeX's thousands separators: "9{,}500"
    for match in _NUMBER.finditer(fold(text)):
        digits = match["digits"]
        if digits.count(".") > 1:
            continue  # "1.2.3": a version or a date, not a number
        value = float(digits)
        found.append(-value if match["minus"] else value)
    return found


def extract_number(text: str | None, which: str = "last") -> float | None:
    """The first or last number of a text, or None."""
    found = numbers(text)
    if not found:
        return None
    return found[0] if which == "first" else found[-1]
