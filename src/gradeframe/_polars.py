"""The ``.grade`` namespace on Polars DataFrame, LazyFrame, Series and Expr.

Each method is a one-line delegator to a module-level function; no rule lives here. Each spells
out its parameters and takes its docstring from the function (see :mod:`gradeframe._delegate`);
``tests/test_namespaces.py`` holds every method's signature to its function's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import extract as extract_rules
from gradeframe import fold as fold_rules
from gradeframe import matchers as matcher_rules
from gradeframe import rubric as rubric_rules
from gradeframe import verdict as verdict_rules
from gradeframe._delegate import delegates
from gradeframe._inputs import IntoExpr
from gradeframe._summary import SummaryMethods
from gradeframe.answer import NotFound, Refusal
from gradeframe.extract import Which
from gradeframe.matchers.equivalent import Fallback, Percent
from gradeframe.matchers.matches import PatternLike
from gradeframe.matchers.tool_calls import Arguments, Mode
from gradeframe.verdict import OnConflict, Scheme

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


class _FrameGrade(SummaryMethods[FrameT]):
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
        refusal: Refusal = None,
        whole_words: bool = False,
        explain: bool = False,
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
            refusal=refusal,
            whole_words=whole_words,
            explain=explain,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_exact_match, doc=matcher_rules.exact_match)
    def exact_match(
        self,
        actual: IntoExpr,
        expected: IntoExpr | bool | float | Sequence[str],
        *,
        ignore_case: bool = True,
        strip: bool = True,
        fold: bool = False,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_exact_match(
            self._frame,
            actual,
            expected,
            ignore_case=ignore_case,
            strip=strip,
            fold=fold,
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
        fold: bool = False,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_includes(
            self._frame,
            actual,
            expected,
            ignore_case=ignore_case,
            fold=fold,
            label=label,
            prefix=prefix,
        )

    @delegates(matcher_rules.with_choice, doc=matcher_rules.choice)
    def choice(
        self,
        actual: IntoExpr,
        expected: IntoExpr | Sequence[str],
        *,
        letters: str = "ABCDEFGHIJ",
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_choice(
            self._frame, actual, expected, letters=letters, label=label, prefix=prefix
        )

    @delegates(matcher_rules.with_f1, doc=matcher_rules.f1)
    def f1(
        self,
        actual: IntoExpr,
        expected: IntoExpr | Sequence[str],
        *,
        threshold: float = 0.5,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_f1(
            self._frame, actual, expected, threshold=threshold, label=label, prefix=prefix
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

    @delegates(matcher_rules.with_equivalent, doc=matcher_rules.equivalent)
    def equivalent(
        self,
        actual: IntoExpr,
        expected: IntoExpr,
        *,
        percent: Percent = "either",
        rel_tol: float = 0.0,
        abs_tol: float = 0.0,
        fallback: Fallback = "symbolic",
        timeout: float = 5.0,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_equivalent(
            self._frame,
            actual,
            expected,
            percent=percent,
            rel_tol=rel_tol,
            abs_tol=abs_tol,
            fallback=fallback,
            timeout=timeout,
            label=label,
            prefix=prefix,
        )

    @delegates(verdict_rules.with_judge, doc=verdict_rules.judge)
    def judge(
        self,
        text: IntoExpr = "judge",
        *,
        scheme: Scheme = "grade",
        expected: IntoExpr | None = None,
        answer: IntoExpr | None = None,
        pass_score: float | None = None,
        choices: Sequence[str] | None = None,
        scale: tuple[float, float] | None = None,
        on_conflict: OnConflict = "last",
        prefix: str = "",
    ) -> FrameT:
        return verdict_rules.with_judge(
            self._frame,
            text,
            scheme=scheme,
            expected=expected,
            answer=answer,
            pass_score=pass_score,
            choices=choices,
            scale=scale,
            on_conflict=on_conflict,
            prefix=prefix,
        )

    @delegates(rubric_rules.with_rubric)
    def rubric(self, criteria: str = "rubric", met: str = "met", *, prefix: str = "") -> FrameT:
        return rubric_rules.with_rubric(self._frame, criteria, met, prefix=prefix)

    @delegates(matcher_rules.with_tool_calls, doc=matcher_rules.tool_calls)
    def tool_calls(
        self,
        actual: IntoExpr = "tool_calls",
        expected: IntoExpr = "expected_calls",
        *,
        mode: Mode = "in_order",
        arguments: Arguments = "exact",
        rel_tol: float = 0.0,
        label: str | None = None,
        prefix: str = "",
    ) -> FrameT:
        return matcher_rules.with_tool_calls(
            self._frame,
            actual,
            expected,
            mode=mode,
            arguments=arguments,
            rel_tol=rel_tol,
            label=label,
            prefix=prefix,
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

    @delegates(answer_rules.is_refusal)
    def is_refusal(self, *, phrases: Sequence[str] | None = None) -> pl.Expr:
        return answer_rules.is_refusal(self._expr, phrases=phrases)

    @delegates(extract_rules.extract_answer)
    def extract_answer(self, *, marker: str = "answer") -> pl.Expr:
        return extract_rules.extract_answer(self._expr, marker=marker)

    @delegates(extract_rules.extract)
    def extract(self, pattern: PatternLike, *, group: int = 1, which: Which = "last") -> pl.Expr:
        return extract_rules.extract(self._expr, pattern, group=group, which=which)

    @delegates(extract_rules.extract_number)
    def extract_number(self, *, which: Which = "last") -> pl.Expr:
        return extract_rules.extract_number(self._expr, which=which)

    @delegates(extract_rules.extract_boxed)
    def extract_boxed(self) -> pl.Expr:
        return extract_rules.extract_boxed(self._expr)

    @delegates(verdict_rules.read_verdict)
    def read_verdict(
        self,
        *,
        scheme: Scheme = "grade",
        choices: Sequence[str] | None = None,
        scale: tuple[float, float] | None = None,
        on_conflict: OnConflict = "last",
    ) -> pl.Expr:
        return verdict_rules.read_verdict(
            self._expr, scheme=scheme, choices=choices, scale=scale, on_conflict=on_conflict
        )


@pl.api.register_series_namespace("grade")
class SeriesGrade:
    """``s.grade``: the text rules on a Series, run through the expressions."""

    def __init__(self, series: pl.Series) -> None:
        self._series = series

    def _run(self, function: Callable[..., pl.Expr], /, *args: Any, **kwargs: Any) -> pl.Series:
        """Run an expression function on this Series; the result keeps its name."""
        name = self._series.name
        expr = function(pl.col(name), *args, **kwargs).alias(name)
        return self._series.to_frame(name).select(expr).to_series()

    @delegates(fold_rules.fold)
    def fold(self) -> pl.Series:
        return self._run(fold_rules.fold)

    @delegates(answer_rules.is_not_found)
    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pl.Series:
        return self._run(answer_rules.is_not_found, phrases=phrases)

    @delegates(answer_rules.is_refusal)
    def is_refusal(self, *, phrases: Sequence[str] | None = None) -> pl.Series:
        return self._run(answer_rules.is_refusal, phrases=phrases)

    @delegates(extract_rules.extract_answer)
    def extract_answer(self, *, marker: str = "answer") -> pl.Series:
        return self._run(extract_rules.extract_answer, marker=marker)

    @delegates(extract_rules.extract)
    def extract(self, pattern: PatternLike, *, group: int = 1, which: Which = "last") -> pl.Series:
        return self._run(extract_rules.extract, pattern, group=group, which=which)

    @delegates(extract_rules.extract_number)
    def extract_number(self, *, which: Which = "last") -> pl.Series:
        return self._run(extract_rules.extract_number, which=which)

    @delegates(extract_rules.extract_boxed)
    def extract_boxed(self) -> pl.Series:
        return self._run(extract_rules.extract_boxed)

    @delegates(verdict_rules.read_verdict)
    def read_verdict(
        self,
        *,
        scheme: Scheme = "grade",
        choices: Sequence[str] | None = None,
        scale: tuple[float, float] | None = None,
        on_conflict: OnConflict = "last",
    ) -> pl.Series:
        return self._run(
            verdict_rules.read_verdict,
            scheme=scheme,
            choices=choices,
            scale=scale,
            on_conflict=on_conflict,
        )
