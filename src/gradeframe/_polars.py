"""The ``.grade`` namespace on Polars DataFrame, LazyFrame, Series and Expr.

Each method is a one-line delegator to a module-level function; no rule lives here. The methods
come from the tables of :mod:`gradeframe._methods`: each has its function's parameters and
docstring (see :func:`gradeframe._delegate.add_methods`), and runs it through the namespace's
one runner (``_grade``, ``_build``, ``_run``), which hands it the frame, expression or Series.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import polars as pl

from gradeframe._delegate import add_methods
from gradeframe._methods import GRADING, TEXT
from gradeframe._summary import SummaryMethods

FrameT = TypeVar("FrameT", pl.DataFrame, pl.LazyFrame)


@add_methods(GRADING, returns="FrameT", runner="_grade")
class _FrameGrade(SummaryMethods[FrameT]):
    """Shared by DataFrame and LazyFrame: every method returns the same kind of frame."""

    def __init__(self, frame: FrameT) -> None:
        self._frame = frame

    def _grade(self, function: Callable[..., FrameT], /, *args: Any, **kwargs: Any) -> FrameT:
        return function(self._frame, *args, **kwargs)


@pl.api.register_dataframe_namespace("grade")
class DataFrameGrade(_FrameGrade[pl.DataFrame]):
    """``df.grade``: gradeframe on a Polars DataFrame."""


@pl.api.register_lazyframe_namespace("grade")
class LazyFrameGrade(_FrameGrade[pl.LazyFrame]):
    """``lf.grade``: gradeframe on a Polars LazyFrame (lazy in, lazy out)."""


class _Text:
    """The text rules' namespace on an expression or a Series: it holds the object."""

    def __init__(self, wrapped: Any) -> None:
        self._wrapped = wrapped


@pl.api.register_expr_namespace("grade")
@add_methods(TEXT, returns="pl.Expr", runner="_build")
class ExprGrade(_Text):
    """``pl.col(...).grade``: the text rules as expressions."""

    def _build(self, function: Callable[..., pl.Expr], /, *args: Any, **kwargs: Any) -> pl.Expr:
        return function(self._wrapped, *args, **kwargs)


@pl.api.register_series_namespace("grade")
@add_methods(TEXT, returns="pl.Series", runner="_run")
class SeriesGrade(_Text):
    """``s.grade``: the text rules on a Series, run through the expressions."""

    def _run(self, function: Callable[..., pl.Expr], /, *args: Any, **kwargs: Any) -> pl.Series:
        """Run an expression function on this Series; the result keeps its name."""
        series: pl.Series = self._wrapped
        expr = function(pl.col(series.name), *args, **kwargs).alias(series.name)
        return series.to_frame(series.name).select(expr).to_series()
