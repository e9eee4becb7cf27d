"""The ``.grade`` accessor on pandas DataFrame and Series: an Arrow round trip, nothing more.

Only the columns a call needs go to Polars (through Arrow); the same frame-level function runs
there; the columns it adds come back and are attached to a copy of the caller's frame, by
position, so the index (RangeIndex, labels, MultiIndex, duplicates) is kept as it was. The
caller's frame is never changed.

Result dtypes: Boolean columns without nulls are NumPy ``bool``; String columns use the pandas
string dtype ``str`` (``pd.StringDtype(na_value=nan)``, the pandas 3 default); other columns are
what ``polars.Series.to_pandas`` gives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import polars as pl

from gradeframe import answer as answer_rules
from gradeframe import chart as chart_rules
from gradeframe import compare as compare_rules
from gradeframe import fold
from gradeframe import matchers as matcher_rules
from gradeframe import report as report_rules
from gradeframe._frames import (
    Role,
    needed_columns,
    to_pandas_column,
    to_polars,
)
from gradeframe._inputs import check_output_names, check_prefix


def run_on_pandas(
    frame: pd.DataFrame,
    function: Callable[..., pl.DataFrame],
    columns: Mapping[str, Role | None],
    /,
    *args: Any,
    **kwargs: Any,
) -> pd.DataFrame:
    """Run a Polars frame-level function on a pandas frame and attach the columns it adds."""
    polars_frame = to_polars(frame, columns)
    result = function(polars_frame, *args, **kwargs)
    added = [c for c in result.columns if c not in polars_frame.columns]
    out = frame.copy(deep=False)  # copy-on-write: the caller's frame is never changed
    for name in added:
        out[name] = to_pandas_column(result.get_column(name))
    return out


@pd.api.extensions.register_dataframe_accessor("grade")
class PandasFrameGrade:
    """``df.grade``: gradeframe on a pandas DataFrame (same answers as Polars)."""

    def __init__(self, frame: pd.DataFrame) -> None:
        if not isinstance(frame, pd.DataFrame):  # pragma: no cover - pandas guarantees this
            msg = "`.grade` works on a pandas DataFrame"
            raise AttributeError(msg)
        self._frame = frame

    def answer_contains(
        self,
        answer: Any = "answer",
        refs: Any = "refs",
        *,
        partial: Any = None,
        notes: Any = None,
        trace: Any = None,
        status: Any = None,
        failure_kind: Any = None,
        not_found: Any = None,
        prefix: str = "",
    ) -> pd.DataFrame:
        """Add correct, failure_kind and outcome; see :func:`gradeframe.answer_contains`."""
        arguments = [
            ("answer", answer, "text"),
            ("refs", refs, "refs"),
            ("partial", partial, None),
            ("notes", notes, None),
            ("trace", trace, None),
            ("status", status, None),
            ("failure_kind", failure_kind, None),
            ("not_found", not_found if isinstance(not_found, str | pl.Expr) else None, None),
        ]
        return self._add_columns(
            answer_rules.with_answer_contains,
            answer_rules.OUTPUT_COLUMNS,
            arguments,
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

    def _add_columns(
        self,
        function: Callable[..., pl.DataFrame],
        columns: Sequence[str],
        arguments: Iterable[tuple[str, Any, Role | None]],
        /,
        *args: Any,
        **kwargs: Any,
    ) -> pd.DataFrame:
        """Check the arguments on the whole pandas frame, then run a Polars frame function."""
        prefix = kwargs.get("prefix", "")
        check_prefix(prefix)
        needed = needed_columns(self._frame, arguments)
        present = {str(c): pl.Null() for c in self._frame.columns}
        check_output_names(present, [prefix + c for c in columns])
        return run_on_pandas(self._frame, function, needed, *args, **kwargs)

    def exact_match(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct and expectation; see :func:`gradeframe.exact_match`."""
        arguments = [("actual", actual, "mixed"), ("expected", expected, "mixed")]
        return self._add_columns(
            matcher_rules.with_exact_match,
            matcher_rules.EXACT_MATCH_COLUMNS,
            arguments,
            actual,
            expected,
            **kwargs,
        )

    def includes(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct, expectation and missing; see :func:`gradeframe.includes`."""
        arguments = [("actual", actual, "mixed"), ("expected", expected, "refs")]
        return self._add_columns(
            matcher_rules.with_includes,
            matcher_rules.INCLUDES_COLUMNS,
            arguments,
            actual,
            expected,
            **kwargs,
        )

    def matches(self, actual: Any, pattern: Any = None, **kwargs: Any) -> pd.DataFrame:
        """Add correct and expectation; see :func:`gradeframe.matches`."""
        column = kwargs.get("pattern_column")
        arguments = [("actual", actual, "mixed"), ("pattern_column", column, None)]
        return self._add_columns(
            matcher_rules.with_matches,
            matcher_rules.MATCHES_COLUMNS,
            arguments,
            actual,
            pattern,
            **kwargs,
        )

    def within(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct, expectation, tolerance and difference; see :func:`gradeframe.within`."""
        arguments = [("actual", actual, "mixed"), ("expected", expected, "mixed")]
        return self._add_columns(
            matcher_rules.with_within,
            matcher_rules.WITHIN_COLUMNS,
            arguments,
            actual,
            expected,
            **kwargs,
        )

    def report(self, by: Any = None, **kwargs: Any) -> pd.DataFrame:
        """Summarise accuracy and failures per group; see :func:`gradeframe.report`."""
        return report_rules.report(self._frame, by, **kwargs)

    def failures(self, **kwargs: Any) -> pd.DataFrame:
        """Return the rows that are not right; see :func:`gradeframe.failures`."""
        return report_rules.failures(self._frame, **kwargs)

    def chart(self, by: Any = None, **kwargs: Any) -> Any:
        """Chart failures and accuracy per group (Altair); see :func:`gradeframe.chart`."""
        return chart_rules.chart(self._frame, by, **kwargs)

    def compare(self, by: Any = "model", on: Any = "question_id", **kwargs: Any) -> pd.DataFrame:
        """Compare groups pairwise on shared items; see :func:`gradeframe.compare`."""
        return compare_rules.compare(self._frame, by, on, **kwargs)

    def agreement(self, a: Any, b: Any, **kwargs: Any) -> pd.DataFrame:
        """Agreement of two verdict columns; see :func:`gradeframe.agreement`."""
        return compare_rules.agreement(self._frame, a, b, **kwargs)

    def compare_chart(self, by: Any = "model", on: Any = "question_id", **kwargs: Any) -> Any:
        """Chart paired differences (Altair); see :func:`gradeframe.compare_chart`."""
        return chart_rules.compare_chart(self._frame, by, on, **kwargs)


@pd.api.extensions.register_series_accessor("grade")
class PandasSeriesGrade:
    """``s.grade``: the text rules on a pandas Series, with its index kept."""

    def __init__(self, series: pd.Series) -> None:
        self._series = series

    def _run(self, make: Callable[[pl.Expr], pl.Expr]) -> pd.Series:
        name = "__gradeframe__"
        frame = to_polars(pd.DataFrame({name: self._series.array}), {name: "text"})
        values = frame.select(make(pl.col(name)).alias(name)).to_series()
        return pd.Series(to_pandas_column(values), index=self._series.index, name=self._series.name)

    def fold(self) -> pd.Series:
        """Fold text; see :func:`gradeframe.fold`."""
        return self._run(fold.fold)

    def is_not_found(self, *, phrases: Sequence[str] | None = None) -> pd.Series:
        """Detect not-found reports; see :func:`gradeframe.is_not_found`."""
        return self._run(lambda e: answer_rules.is_not_found(e, phrases=phrases))
