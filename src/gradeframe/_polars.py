"""The ``.grade`` namespace on Polars DataFrame, LazyFrame, Series and Expr.

Each method is a one-line delegator to a module-level function; no rule lives here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import extract as extract_rules
from gradeframe import fold
from gradeframe import matchers as matcher_rules
from gradeframe import report as report_rules


class _FrameGrade:
    """Shared by DataFrame and LazyFrame: every method returns the same kind of frame."""

    def __init__(self, frame: pl.DataFrame | pl.LazyFrame) -> None:
        self._frame = frame

    def answer_contains(self, answer: Any = "answer", refs: Any = "refs", **kwargs: Any) -> Any:
        """Add correct, failure_kind and outcome; see :func:`gradeframe.answer_contains`."""
        return answer_rules.with_answer_contains(self._frame, answer, refs, **kwargs)

    def exact_match(self, actual: Any, expected: Any, **kwargs: Any) -> Any:
        """Add correct and expectation; see :func:`gradeframe.exact_match`."""
        return matcher_rules.with_exact_match(self._frame, actual, expected, **kwargs)

    def includes(self, actual: Any, expected: Any, **kwargs: Any) -> Any:
        """Add correct, expectation and missing; see :func:`gradeframe.includes`."""
        return matcher_rules.with_includes(self._frame, actual, expected, **kwargs)

    def matches(self, actual: Any, pattern: Any = None, **kwargs: Any) -> Any:
        """Add correct and expectation; see :func:`gradeframe.matches`."""
        return matcher_rules.with_matches(self._frame, actual, pattern, **kwargs)

    def within(self, actual: Any, expected: Any, **kwargs: Any) -> Any:
        """Add correct, expectation, tolerance and difference; see :func:`gradeframe.within`."""
        return matcher_rules.with_within(self._frame, actual, expected, **kwargs)

    def choice(self, actual: Any, expected: Any, **kwargs: Any) -> Any:
        """Add correct, expectation and chosen; see :func:`gradeframe.choice`."""
        return matcher_rules.with_choice(self._frame, actual, expected, **kwargs)

    def f1(self, actual: Any, expected: Any, **kwargs: Any) -> Any:
        """Add correct, expectation and f1; see :func:`gradeframe.f1`."""
        return matcher_rules.with_f1(self._frame, actual, expected, **kwargs)

    def report(self, by: Any = None, **kwargs: Any) -> Any:
        """Summarise accuracy and failures per group; see :func:`gradeframe.report`."""
        return report_rules.report(self._frame, by, **kwargs)

    def failures(self, **kwargs: Any) -> Any:
        """Return the rows that are not right; see :func:`gradeframe.failures`."""
        return report_rules.failures(self._frame, **kwargs)

    def chart(self, by: Any = None, **kwargs: Any) -> Any:
        """Chart failures and accuracy per group (Altair); see :func:`gradeframe.chart`."""
        return report_rules.chart(self._frame, by, **kwargs)


@pl.api.register_dataframe_namespace("grade")
class DataFrameGrade(_FrameGrade):
    """``df.grade``: gradeframe on a Polars DataFrame."""


@pl.api.register_lazyframe_namespace("grade")
class LazyFrameGrade(_FrameGrade):
    """``lf.grade``: gradeframe on a Polars LazyFrame (lazy in, lazy out)."""


@pl.api.register_expr_namespace("grade")
class ExprGrade:
    """``pl.col(...).grade``: the text rules as expressions."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    def fold(self) -> pl.Expr:
        """Fold text; see :func:`gradeframe.fold`."""
        return fold.fold(self._expr)

    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pl.Expr:
        """Detect not-found reports; see :func:`gradeframe.is_not_found`."""
        return answer_rules.is_not_found(self._expr, phrases=phrases)

    def extract_answer(self, *, marker: str = "answer") -> pl.Expr:
        """Read the answer after the last marker line; see :func:`gradeframe.extract_answer`."""
        return extract_rules.extract_answer(self._expr, marker=marker)

    def extract(self, pattern: Any, *, group: int = 1, which: str = "last") -> pl.Expr:
        """Capture a group of a regex match; see :func:`gradeframe.extract`."""
        return extract_rules.extract(self._expr, pattern, group=group, which=which)  # type: ignore[arg-type]

    def extract_number(self, *, which: str = "last") -> pl.Expr:
        """Read a number; see :func:`gradeframe.extract_number`."""
        return extract_rules.extract_number(self._expr, which=which)  # type: ignore[arg-type]

    def extract_boxed(self) -> pl.Expr:
        r"""Read the last \boxed{...}; see :func:`gradeframe.extract_boxed`."""
        return extract_rules.extract_boxed(self._expr)


@pl.api.register_series_namespace("grade")
class SeriesGrade:
    """``s.grade``: the text rules on a Series, run through the expressions."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def _run(self, expr: pl.Expr) -> pl.Series:
        name = self._series.name
        return self._series.to_frame(name).select(expr.alias(name)).to_series()

    def fold(self) -> pl.Series:
        """Fold text; see :func:`gradeframe.fold`."""
        return self._run(fold.fold(pl.col(self._series.name)))

    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pl.Series:
        """Detect not-found reports; see :func:`gradeframe.is_not_found`."""
        return self._run(answer_rules.is_not_found(pl.col(self._series.name), phrases=phrases))

    def extract_answer(self, *, marker: str = "answer") -> pl.Series:
        """Read the answer after the last marker line; see :func:`gradeframe.extract_answer`."""
        return self._run(extract_rules.extract_answer(pl.col(self._series.name), marker=marker))

    def extract(self, pattern: Any, *, group: int = 1, which: str = "last") -> pl.Series:
        """Capture a group of a regex match; see :func:`gradeframe.extract`."""
        column = pl.col(self._series.name)
        return self._run(extract_rules.extract(column, pattern, group=group, which=which))  # type: ignore[arg-type]

    def extract_number(self, *, which: str = "last") -> pl.Series:
        """Read a number; see :func:`gradeframe.extract_number`."""
        return self._run(extract_rules.extract_number(pl.col(self._series.name), which=which))  # type: ignore[arg-type]

    def extract_boxed(self) -> pl.Series:
        r"""Read the last \boxed{...}; see :func:`gradeframe.extract_boxed`."""
        return self._run(extract_rules.extract_boxed(pl.col(self._series.name)))
