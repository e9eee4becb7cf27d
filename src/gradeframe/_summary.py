"""The summary methods of a frame's ``.grade`` namespace, shared by Polars and pandas.

``report``, ``failures``, ``chart``, ``compare``, ``agreement``, ``compare_chart``, ``html``,
``pass_at_k``, ``consistency`` and ``flaky`` run the same functions on a Polars DataFrame or
LazyFrame and on a pandas DataFrame (each function takes any of them and returns the kind it
was given), so both namespaces take them from
:class:`SummaryMethods` instead of spelling them out twice. Like every namespace method, each
states its function's parameters and takes its docstring (see :mod:`gradeframe._delegate`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import pandas as pd
import polars as pl

from gradeframe import chart as chart_rules
from gradeframe import compare as compare_rules
from gradeframe import failures as failure_rules
from gradeframe import report as report_rules
from gradeframe import samples as sample_rules
from gradeframe._delegate import delegates
from gradeframe._inputs import IntoExpr
from gradeframe.html import _page as html_rules
from gradeframe.report import By
from gradeframe.samples import Groups, On
from gradeframe.stats import Adjustment

if TYPE_CHECKING:
    import altair as alt

Summarized = TypeVar("Summarized", pl.DataFrame, pl.LazyFrame, pd.DataFrame)


class SummaryMethods(Generic[Summarized]):
    """The summary methods of ``.grade`` on a frame held as ``self._frame``."""

    _frame: Summarized

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
        cost: Any = None,
    ) -> Summarized:
        return report_rules.report(
            self._frame,
            by,
            correct=correct,
            failure_kind=failure_kind,
            prefix=prefix,
            cluster=cluster,
            score=score,
            carried_kinds=carried_kinds,
            cost=cost,
        )

    @delegates(failure_rules.failures)
    def failures(
        self,
        *,
        actual: str | bool | None = None,
        expected: str | bool | None = None,
        prefix: str = "",
        correct: str = "correct",
        failure_kind: str = "failure_kind",
        kind: str | Sequence[str] | None = None,
    ) -> Summarized:
        return failure_rules.failures(
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
        by: str | Sequence[str] = "model",
        on: str | Sequence[str] | None = None,
        *,
        correct: str = "correct",
        baseline: Any = None,
        adjust: Adjustment = "holm",
    ) -> Summarized:
        return compare_rules.compare(
            self._frame, by, on, correct=correct, baseline=baseline, adjust=adjust
        )

    @delegates(compare_rules.agreement)
    def agreement(self, a: str, b: str, *, by: str | Sequence[str] | None = None) -> Summarized:
        return compare_rules.agreement(self._frame, a, b, by=by)

    @delegates(chart_rules.compare_chart)
    def compare_chart(
        self,
        by: str = "model",
        on: str | Sequence[str] | None = None,
        *,
        correct: str = "correct",
        baseline: Any = None,
        title: str | None = None,
    ) -> alt.LayerChart:
        return chart_rules.compare_chart(
            self._frame, by, on, correct=correct, baseline=baseline, title=title
        )

    @delegates(html_rules.html_report)
    def html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        by: str | Sequence[str] | None = None,
        on: str | Sequence[str] | None = None,
        title: str | None = None,
        max_failures: int = 5000,
        actual: str | bool | None = None,
        expected: str | bool | None = None,
        cost: Any = None,
    ) -> str:
        return html_rules.html_report(
            self._frame,
            path,
            by=by,
            on=on,
            title=title,
            max_failures=max_failures,
            actual=actual,
            expected=expected,
            cost=cost,
        )

    @delegates(sample_rules.pass_at_k)
    def pass_at_k(
        self,
        k: int | Sequence[int] = 1,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
    ) -> Summarized:
        return sample_rules.pass_at_k(self._frame, k, by=by, on=on, correct=correct)

    @delegates(sample_rules.consistency)
    def consistency(
        self,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
        answer: IntoExpr | None = None,
        vote: sample_rules.Vote = ...,
    ) -> Summarized:
        return sample_rules.consistency(
            self._frame, by=by, on=on, correct=correct, answer=answer, vote=vote
        )

    @delegates(sample_rules.flaky)
    def flaky(
        self,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
        answer: IntoExpr | None = None,
        vote: sample_rules.Vote = ...,
    ) -> Summarized:
        return sample_rules.flaky(
            self._frame, by=by, on=on, correct=correct, answer=answer, vote=vote
        )

    @delegates(chart_rules.pass_at_k_chart)
    def pass_at_k_chart(
        self,
        k: int | Sequence[int] | None = None,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
        title: str | None = None,
    ) -> alt.LayerChart:
        return chart_rules.pass_at_k_chart(
            self._frame, k, by=by, on=on, correct=correct, title=title
        )
