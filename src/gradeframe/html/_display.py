"""Display values of the HTML page: numbers, names and cells as the page shows them.

Counts exactly, proportions to 3 decimals; names cut to :data:`~gradeframe.html._limits.MAX_LABEL`
characters and listed text to :data:`~gradeframe.html._limits.MAX_TEXT` (an ellipsis marks the
cut); a long text's start shown and the rest on demand; a near miss marked in an answer.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from gradeframe.html._limits import ELLIPSIS, MAX_LABEL, MAX_TEXT, short

#: Answers longer than this many characters show their start, the rest on demand.
SHORT_TEXT: Final = 200

#: A cell shown on the page for a missing value.
MISSING: Final = "—"


def label(values: Sequence[Any]) -> str:
    """Show a group's or an item's values, a missing one as "—" (never "null"), shortened."""
    return short(" · ".join(MISSING if v is None else str(v) for v in values), MAX_LABEL)


def count(value: Any) -> str:
    """Show a count exactly (no separators, so it copies as a number)."""
    return MISSING if value is None else str(int(value))


def proportion(value: Any) -> str:
    """Show a proportion to 3 decimals."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{value:.3f}"


def percent(value: Any) -> str:
    """Show a proportion as a percentage to one decimal."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return f"{100 * value:.1f}%"


def signed(value: Any) -> str:
    """Show a difference to 3 decimals with its sign."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    text = f"{value:+.3f}"
    return "0.000" if text in ("+0.000", "-0.000") else text


def p_value(value: Any) -> str:
    """Show a p-value to 3 decimals ("<0.001" below that)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return MISSING
    return "<0.001" if value < 0.0005 else f"{value:.3f}"


def unit(value: Any) -> float | None:
    """Place a proportion on a 0..1 axis (None: not drawn)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return min(1.0, max(0.0, float(value)))


def signed_unit(value: Any, scale: float) -> float | None:
    """Place a difference in [-scale, scale] on a 0..1 axis."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    return min(1.0, max(0.0, (float(value) / scale + 1) / 2))


def as_text(value: Any) -> str:
    """Show any value as text: lists joined with " | ", records by their answer or as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return proportion(value)
    if isinstance(value, list | tuple):
        return " | ".join(as_text(v) for v in value)
    if isinstance(value, dict):
        for name in ("answer", "text"):
            if isinstance(value.get(name), str):
                return value[name]
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return str(value)


#: The extent of a near miss in the answer: the acceptable answer with the word or number
#: characters around it ("145.2" around "45.2"), and a number's sign ("-12" around "12").
_AROUND: Final = r"(?:\w|[.,](?=\d))*"
_SIGN: Final = r"(?:[-\u2212](?=[\w.,]*\d))?"


def _marked(text: str, near_miss: str | None) -> tuple[int, int] | None:
    if not near_miss:
        return None
    pattern = _SIGN + _AROUND + re.escape(near_miss) + _AROUND
    found = list(re.finditer(pattern, text, flags=re.IGNORECASE))
    # The occurrence inside a longer number or word is the near miss; else the first one.
    inside = [m for m in found if len(m.group()) > len(near_miss)]
    first = (inside or found or [None])[0]
    return (first.start(), first.end()) if first else None


def _segments(text: str, span: tuple[int, int] | None, start: int, end: int) -> list[Any]:
    """Split the text from start to end into (text, marked) pieces."""
    if span is None or span[1] <= start or span[0] >= end:
        return [(text[start:end], False)] if end > start else []
    low, high = max(span[0], start), min(span[1], end)
    pieces = [(text[start:low], False), (text[low:high], True), (text[high:end], False)]
    return [p for p in pieces if p[0]]


def cell(
    value: Any, *, mark: str | None = None, number: bool = False, key: bool = False
) -> dict[str, Any]:
    """Make a table cell: its text (at most MAX_TEXT characters) as its start and the rest."""
    text = proportion(value) if number and isinstance(value, float) else as_text(value)
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + ELLIPSIS
    span = _marked(text, mark)
    cut = len(text)
    if len(text) > SHORT_TEXT + SHORT_TEXT // 4:
        cut = SHORT_TEXT
        if span is not None and span[0] < cut < span[1]:
            cut = span[1]  # never split the marked near miss
    return {
        "head": _segments(text, span, 0, cut),
        "tail": _segments(text, span, cut, len(text)),
        "missing": value is None,
        "cls": " ".join(
            name
            for name, on in (("key", key), ("num", number and not span), ("missing", value is None))
            if on
        ),
        "unmarked": short(mark, MAX_TEXT) if mark and span is None else None,
    }


def plain_table(table: pl.DataFrame) -> dict[str, Any]:
    """Turn a small listing into column names and display cells."""
    numeric = [table.schema[c].is_numeric() for c in table.columns]
    rows = [
        [cell(v, number=is_number) for v, is_number in zip(row, numeric, strict=True)]
        for row in table.iter_rows()
    ]
    return {"columns": [short(c) for c in table.columns], "numeric": numeric, "rows": rows}
