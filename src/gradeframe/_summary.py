"""The summary methods of a frame's ``.grade`` namespace, shared by Polars and pandas.

``report``, ``failures``, ``chart``, ``compare``, ``agreement``, ``compare_chart``, ``html``,
``pass_at_k``, ``consistency`` and ``flaky`` run the same functions on a Polars DataFrame or
LazyFrame and on a pandas DataFrame (each function takes any of them and returns the kind it
was given), so both namespaces take them from
:class:`SummaryMethods` instead of writing them twice. Like every namespace method, each
has its function's parameters and docstring: the methods are made from the table
:data:`SUMMARIES` (see :func:`gradeframe._delegate.add_methods`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, TypeVar

import pandas as pd
import polars as pl

from gradeframe import chart as chart_rules
from gradeframe import compare as compare_rules
from gradeframe import failures as failure_rules
from gradeframe import report as report_rules
from gradeframe import samples as sample_rules
from gradeframe._delegate import add_methods
from gradeframe.html import _page as html_rules

Summarized = TypeVar("Summarized", pl.DataFrame, pl.LazyFrame, pd.DataFrame)

#: The summary methods: name -> (function, None); each takes the frame first.
SUMMARIES: Final = {
    function.__name__ if name is None else name: (function, None)
    for name, function in [
        (None, report_rules.report),
        (None, failure_rules.failures),
        (None, chart_rules.chart),
        (None, compare_rules.compare),
        (None, compare_rules.agreement),
        (None, chart_rules.compare_chart),
        ("html", html_rules.html_report),
        (None, sample_rules.pass_at_k),
        (None, sample_rules.consistency),
        (None, sample_rules.flaky),
        (None, chart_rules.pass_at_k_chart),
    ]
}

#: What each summary method returns: the kind of frame it is called on, but for these.
RETURNS: Final = {
    **dict.fromkeys(SUMMARIES, "Summarized"),
    "chart": "alt.HConcatChart",
    "compare_chart": "alt.LayerChart",
    "pass_at_k_chart": "alt.LayerChart",
    "html": "str",
}


@add_methods(SUMMARIES, returns=RETURNS, runner="_summarize")
class SummaryMethods(Generic[Summarized]):
    """The summary methods of ``.grade`` on a frame held as ``self._frame``."""

    _frame: Summarized

    def _summarize(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return function(self._frame, *args, **kwargs)
