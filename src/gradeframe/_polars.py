"""The ``.grade`` namespace on Polars DataFrame, LazyFrame, Series and Expr.

Each method is a one-line delegator to a module-level function; no rule lives here. Each spells
out its parameters and takes its docstring from the function (see :mod:`gradeframe._delegate`);
``tests/test_namespaces.py`` holds every method's signature to its function's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import chart as chart_rules
from gradeframe import compare as compare_rules
from gradeframe import fold as fold_rules
from gradeframe import matchers as matcher_rules
from gradeframe import report as report_rules
from gradeframe._delegate import delegates
from gradeframe._inputs import IntoExpr
from gradeframe.answer import NotFound
from gradeframe.matchers import PatternLike
from gradeframe.report import By

if TYPE_CHECKING:
    import altair as alt

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class _FrameGrade(Generic[FrameT]):
    """Shared by DataFrame and LazyFrame: every method returns the same kind of frame."""

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    @delegates(answer_rules.with_answer_contains, doc=answer_rules.answer_contains)
    def answer_contains(
        self,
        answer: IntoExpr = "answer",
        refs: IntoExpr = "refs",
        *,
        partial: IntoExpr | None = None,
        notes: IntoExpr | None = None,
        trace: IntoExpr | None = None,
        status: IntoExpr | None = None,
        failure_kind: IntoExpr | None = None,
        not_found: NotFound = None,
        prefix: str = "",
    ) -> FrameT:
        return answer_rules.with_answer_contains(
            self._frame,
            answer,
            refs,
            partial=partial,
            notes=notes,
            trace=trace,
            status=status,
            failure_kind=failure_kind,
            not_found=not_found,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_exact_match, doc=matcher_rules.exact_match)
    def exact_match(
        self,
        actual: IntoExpr,
        expected: IntoExpr | bool | float,
        *,
        ignore_case: bool = True,
        strip: bool = True,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_exact_match(
            self._frame,
            actual,
            expected,
            ignore_case=ignore_case,
            strip=strip,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_includes, doc=matcher_rules.includes)
    def includes(
        self,
        actual: IntoExpr,
        expected: IntoExpr | Sequence[str],
        *,
        ignore_case: bool = True,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_includes(
            self._frame, actual, expected, ignore_case=ignore_case, label=label, prefix=prefix
        )

    @delegates(matcher_rules.with_matches, doc=matcher_rules.matches)
    def matches(
        self,
        actual: IntoExpr,
        pattern: PatternLike | None = None,
        *,
        pattern_column: IntoExpr | None = None,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_matches(
            self._frame,
            actual,
            pattern,
            pattern_column=pattern_column,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_within, doc=matcher_rules.within)
    def within(
        self,
        actual: IntoExpr,
        expected: IntoExpr | float,
        *,
        delta: float | None = None,
        percent: float | None = None,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_within(
            self._frame, actual, expected, delta=delta, percent=percent, label=label, prefix=prefix
        )

    @delegates(report_rules.report)
    def report(
        self,
        by: By = None,
        *,
        correct: str = "correct",
        failure_kind: str | None = "failure_kind",
        prefix: str = "",
        cluster: str | None = None,
        score: str | None = None,
        carried_kinds: Sequence[str] | None = None,
    ) -> FrameT:
        return report_rules.report(
            self._frame,
            by,
            correct=correct,
            failure_kind=failure_kind,
            prefix=prefix,
            cluster=cluster,
            score=score,
            carried_kinds=carried_kinds,
        )

    @delegates(report_rules.failures)
    def failures(
        self,
        *,
        actual: str | bool | None = None,
        expected: str | bool | None = None,
        prefix: str = "",
        correct: str = "correct",
        failure_kind: str = "failure_kind",
        kind: str | Sequence[str] | None = None,
    ) -> FrameT:
        return report_rules.failures(
            self._frame,
            actual=actual,
            expected=expected,
            prefix=prefix,
            correct=correct,
            failure_kind=failure_kind,
            kind=kind,
        )

    @delegates(chart_rules.chart)
    def chart(
        self,
        by: By = None,
        *,
        correct: str = "correct",
        failure_kind: str = "failure_kind",
        prefix: str = "",
        title: str | None = None,
    ) -> alt.HConcatChart:
        return chart_rules.chart(
            self._frame,
            by,
            correct=correct,
            failure_kind=failure_kind,
            prefix=prefix,
            title=title,
        )

    @delegates(compare_rules.compare)
    def compare(
        self,
        by: str = "model",
        on: str | Sequence[str] = "question_id",
        *,
        correct: str = "correct",
        baseline: Any = None,
    ) -> FrameT:
        return compare_rules.compare(self._frame, by, on, correct=correct, baseline=baseline)

    @delegates(compare_rules.agreement)
    def agreement(self, a: str, b: str, *, by: str | Sequence[str] | None = None) -> FrameT:
        return compare_rules.agreement(self._frame, a, b, by=by)

    @delegates(chart_rules.compare_chart)
    def compare_chart(
        self,
        by: str = "model",
        on: str | Sequence[str] = "question_id",
        *,
        correct: str = "correct",
        baseline: Any = None,
        title: str | None = None,
    ) -> alt.LayerChart:
        return chart_rules.compare_chart(
            self._frame, by, on, correct=correct, baseline=baseline, title=title
        )


@pl.api.register_dataframe_namespace("grade")
class DataFrameGrade(_FrameGrade[pl.DataFrame]):
    """``df.grade``: gradeframe on a Polars DataFrame."""


@pl.api.register_lazyframe_namespace("grade")
class LazyFrameGrade(_FrameGrade[pl.LazyFrame]):
    """``lf.grade``: gradeframe on a Polars LazyFrame (lazy in, lazy out)."""


@pl.api.register_expr_namespace("grade")
class ExprGrade:
    """``pl.col(...).grade``: the text rules as expressions."""

    def __init__(self, expr: pl.Expr) -> None:
        self._expr = expr

    @delegates(fold_rules.fold)
    def fold(self) -> pl.Expr:
        return fold_rules.fold(self._expr)

    @delegates(answer_rules.is_not_found)
    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pl.Expr:
        return answer_rules.is_not_found(self._expr, phrases=phrases)


@pl.api.register_series_namespace("grade")
class SeriesGrade:
    """``s.grade``: the text rules on a Series, run through the expressions."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def _run(self, function: Callable[..., pl.Expr], /, **kwargs: Any) -> pl.Series:
        """Run an expression function on this Series; the result keeps its name."""
        name = self._series.name
        expr = function(pl.col(name), **kwargs).alias(name)
        return self._series.to_frame(name).select(expr).to_series()

    @delegates(fold_rules.fold)
    def fold(self) -> pl.Series:
        return self._run(fold_rules.fold)

    @delegates(answer_rules.is_not_found)
    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pl.Series:
        return self._run(answer_rules.is_not_found, phrases=phrases)
