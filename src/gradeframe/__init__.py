"""gradeframe: grade model answers held in Polars or pandas frames.

``import gradeframe`` registers the ``.grade`` namespace on Polars (DataFrame, LazyFrame, Series,
Expr) and on pandas (DataFrame, Series).
"""

from __future__ import annotations

from gradeframe import _pandas, _polars  # noqa: F401  (register .grade)
from gradeframe._limits import MAX_METADATA_LENGTH
from gradeframe.answer import (
    DEFAULT_NOT_FOUND_PHRASES,
    answer_contains,
    is_not_found,
    with_answer_contains,
)
from gradeframe.example import example, example_document
from gradeframe.extract import extract, extract_answer, extract_boxed, extract_number
from gradeframe.fold import fold
from gradeframe.kinds import KINDS
from gradeframe.matchers import (
    choice,
    exact_match,
    f1,
    includes,
    matches,
    with_choice,
    with_exact_match,
    with_f1,
    with_includes,
    with_matches,
    with_within,
    within,
)
from gradeframe.report import chart, failures, report

__all__ = [
    "DEFAULT_NOT_FOUND_PHRASES",
    "KINDS",
    "MAX_METADATA_LENGTH",
    "answer_contains",
    "chart",
    "choice",
    "exact_match",
    "example",
    "example_document",
    "extract",
    "extract_answer",
    "extract_boxed",
    "extract_number",
    "f1",
    "failures",
    "fold",
    "includes",
    "is_not_found",
    "matches",
    "report",
    "with_answer_contains",
    "with_choice",
    "with_exact_match",
    "with_f1",
    "with_includes",
    "with_matches",
    "with_within",
    "within",
]
