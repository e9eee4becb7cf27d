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

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from numbers import Integral, Real
from typing import Any, Final

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

from gradeframe import answer as answer_rules
from gradeframe import extract as extract_rules
from gradeframe import fold
from gradeframe import matchers as matcher_rules
from gradeframe import report as report_rules
from gradeframe._inputs import check_column, check_output_names, check_prefix
from gradeframe._mixed import split_mixed
from gradeframe.matchers import _base as matcher_base

#: How a column's values are coerced when Arrow cannot read an object column as it is.
#: "text": non-strings become null (an answer that is not a string is a parse failure).
#: "refs": numbers become plain digits, a scalar becomes a one-item list.
#: "mixed": an object column mixing text, numbers and booleans becomes a struct that keeps each
#: value's kind (see gradeframe._mixed); the matchers read it ("12" is not 12, True is not 1).
Role = str

_STRING_DTYPE: Final = pd.StringDtype(na_value=np.nan)


def _plain_digits(value: Any) -> Any:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool | np.bool_):
        return value  # left for the dtype check to refuse
    if isinstance(value, Integral):
        return str(int(value))
    if isinstance(value, Real):
        number = float(value)
        if math.isnan(number):
            return None
        if number.is_integer() and abs(number) < 1e15:
            return str(int(number))
        return repr(number)
    return value


def _coerce_refs(value: Any) -> Any:
    if isinstance(value, list | tuple | np.ndarray | pd.Series):
        return [_plain_digits(v) for v in value]
    return _plain_digits(value)


def _arrow_column(series: pd.Series, name: str, role: Role | None) -> pa.Array | pa.ChunkedArray:
    """Read one pandas column as Arrow, coercing messy object columns by role."""
    if role == "mixed" and series.dtype == object:
        mixed = split_mixed(series)  # before Arrow, which would read [1.5, True] as [1.5, 1.0]
        if mixed is not None:
            return mixed
    try:
        return pa.array(series, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        first_error = exc
    # Fallback for object columns that mix types: one pass over the Python objects the column
    # already holds, to decide per value what it is. Not a scoring path: scoring happens in Polars.
    values = series.astype(object)
    if role == "text":
        values = values.where(values.map(lambda v: isinstance(v, str)), None)
    elif role == "refs":
        values = values.map(_coerce_refs)
        if values.map(lambda v: isinstance(v, list)).any():
            values = values.map(lambda v: v if isinstance(v, list) or v is None else [v])
    try:
        return pa.array(values, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        kinds = sorted({type(v).__name__ for v in series.dropna().head(1000)})
        msg = (
            f"column {name!r} (pandas dtype {series.dtype}, holding {', '.join(kinds)}) cannot "
            f"be read: {first_error}. Give it one type per column (for example "
            f"df[{name!r}].astype(str))."
        )
        raise TypeError(msg) from None


def to_polars(frame: pd.DataFrame, columns: Mapping[str, Role | None]) -> pl.DataFrame:
    """Convert the named columns of a pandas frame to a Polars frame, through Arrow."""
    arrays = {}
    for name, role in columns.items():
        if name not in frame.columns:
            shown = ", ".join(repr(c) for c in list(frame.columns)[:20])
            msg = f"the frame has no column {name!r}. Its columns are: {shown}."
            raise KeyError(msg)
        column = frame[name]
        if isinstance(column, pd.DataFrame):
            msg = f"the frame has more than one column named {name!r}; rename them apart first."
            raise ValueError(msg)
        arrays[name] = _arrow_column(column, name, role)
    if not arrays:
        return pl.DataFrame(height=len(frame))
    return pl.from_arrow(pa.table(arrays), rechunk=False)  # type: ignore[return-value]


def to_pandas_column(series: pl.Series) -> Any:
    """Return values ready to attach to a pandas frame by position."""
    if series.dtype == pl.Boolean and series.null_count() == 0:
        return series.to_numpy()
    if series.dtype == pl.String:
        return pd.array(series.to_arrow(), dtype=_STRING_DTYPE)
    return series.to_pandas().to_numpy()


def column_names(value: Any) -> list[str]:
    """Column names an argument refers to: a name, or the roots of an expression."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, pl.Expr):
        return value.meta.root_names()
    return []


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


def needed_columns(
    frame: pd.DataFrame, arguments: Iterable[tuple[str, Any, Role | None]]
) -> dict[str, Role | None]:
    """Map the columns the arguments name to their roles; a missing one is named with its argument.

    ``arguments`` holds ``(argument name, value, role)``; a value is a column name, an expression
    (its root columns are used) or anything else (not a column).
    """
    present = dict.fromkeys(str(c) for c in frame.columns)
    needed: dict[str, Role | None] = {}
    for argument, value, role in arguments:
        for name in column_names(value):
            check_column(present, name, argument)  # type: ignore[arg-type]
            needed[name] = needed.get(name) or role
    return needed


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

    def _matcher(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> pd.DataFrame:
        """Run a matcher's frame function; its description says which arguments name columns."""
        spec = matcher_rules.spec_of(function)
        arguments = matcher_base.column_arguments(spec, function, args, kwargs)
        return self._add_columns(function, spec.columns, arguments, *args, **kwargs)

    def exact_match(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct and expectation; see :func:`gradeframe.exact_match`."""
        return self._matcher(matcher_rules.with_exact_match, actual, expected, **kwargs)

    def includes(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct, expectation and missing; see :func:`gradeframe.includes`."""
        return self._matcher(matcher_rules.with_includes, actual, expected, **kwargs)

    def matches(self, actual: Any, pattern: Any = None, **kwargs: Any) -> pd.DataFrame:
        """Add correct and expectation; see :func:`gradeframe.matches`."""
        return self._matcher(matcher_rules.with_matches, actual, pattern, **kwargs)

    def within(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct, expectation, tolerance and difference; see :func:`gradeframe.within`."""
        return self._matcher(matcher_rules.with_within, actual, expected, **kwargs)

    def choice(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct, expectation and chosen; see :func:`gradeframe.choice`."""
        return self._matcher(matcher_rules.with_choice, actual, expected, **kwargs)

    def f1(self, actual: Any, expected: Any, **kwargs: Any) -> pd.DataFrame:
        """Add correct, expectation and f1; see :func:`gradeframe.f1`."""
        return self._matcher(matcher_rules.with_f1, actual, expected, **kwargs)

    def report(self, by: Any = None, **kwargs: Any) -> pd.DataFrame:
        """Summarise accuracy and failures per group; see :func:`gradeframe.report`."""
        return report_rules.report(self._frame, by, **kwargs)

    def failures(self, **kwargs: Any) -> pd.DataFrame:
        """Return the rows that are not right; see :func:`gradeframe.failures`."""
        return report_rules.failures(self._frame, **kwargs)

    def chart(self, by: Any = None, **kwargs: Any) -> Any:
        """Chart failures and accuracy per group (Altair); see :func:`gradeframe.chart`."""
        return report_rules.chart(self._frame, by, **kwargs)


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

    def extract_answer(self, *, marker: str = "answer") -> pd.Series:
        """Read the answer after the last marker line; see :func:`gradeframe.extract_answer`."""
        return self._run(lambda e: extract_rules.extract_answer(e, marker=marker))

    def extract(self, pattern: Any, *, group: int = 1, which: str = "last") -> pd.Series:
        """Capture a group of a regex match; see :func:`gradeframe.extract`."""
        return self._run(lambda e: extract_rules.extract(e, pattern, group=group, which=which))  # type: ignore[arg-type]

    def extract_number(self, *, which: str = "last") -> pd.Series:
        """Read a number; see :func:`gradeframe.extract_number`."""
        return self._run(lambda e: extract_rules.extract_number(e, which=which))  # type: ignore[arg-type]

    def extract_boxed(self) -> pd.Series:
        r"""Read the last \boxed{...}; see :func:`gradeframe.extract_boxed`."""
        return self._run(extract_rules.extract_boxed)
