"""Moving columns between pandas and Polars through Arrow (no accessor is registered here).

The reports and the pandas accessor both use these; keeping them apart from the accessor means
the accessor depends on the reports, never the reverse.

Result dtypes: Boolean columns without nulls are NumPy ``bool``; String columns use the pandas
string dtype ``str`` (``pd.StringDtype(na_value=nan)``, the pandas 3 default); other columns are
what ``polars.Series.to_pandas`` gives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from numbers import Integral, Real
from typing import Any, Final

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

from gradeframe import answer as answer_rules
from gradeframe._inputs import check_column, lone_surrogate, surrogate_error
from gradeframe._mixed import split_mixed
from gradeframe._refs import number_text

#: How a column's values are coerced when Arrow cannot read an object column as it is.
#: "text": non-strings become null (an answer that is not a string is a parse failure).
#: "refs": numbers become plain digits, a scalar becomes a one-item list.
#: "calls": lists of tool calls Arrow cannot type as one column (arguments of different kinds)
#: become JSON text, which the tool_calls matcher reads.
#: "mixed": an object column mixing text, numbers and booleans becomes a struct that keeps each
#: value's kind (see gradeframe._mixed); the matchers read it ("12" is not 12, True is not 1).
Role = str

_STRING_DTYPE: Final = pd.StringDtype(na_value=np.nan)


def _number_kind(value: Any) -> type[pl.DataType] | None:
    """Return the Polars dtype a number is written in (None: not a number)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, Real):
        return None  # a boolean is left for the dtype check to refuse
    if isinstance(value, Integral):
        return pl.Int64  # written by Python (any size); see _coerce_refs
    return pl.Float32 if isinstance(value, np.float32) else pl.Float64


def _coerce_refs(values: list[Any]) -> list[Any]:
    """Write the numbers of a mixed refs column (scalars and list items) as text.

    The texts come from :func:`gradeframe.answer.number_text` over all the floats at once, so a
    value is written exactly as in a numeric column, whatever the other values of the column.
    """
    floats: dict[type[pl.DataType], list[float]] = {pl.Float32: [], pl.Float64: []}

    def items(value: Any) -> list[Any]:
        return list(value) if isinstance(value, list | tuple | np.ndarray | pd.Series) else [value]

    for value in values:
        for item in items(value):
            kind = _number_kind(item)
            if kind in floats:
                floats[kind].append(float(item))
    texts = {
        kind: iter(
            pl.Series("n", numbers, dtype=kind)
            .to_frame()
            .select(number_text(pl.col("n"), kind()))
            .to_series()
            .to_list()
        )
        for kind, numbers in floats.items()
    }

    def write(item: Any) -> Any:
        kind = _number_kind(item)
        if kind is None:
            return item
        if kind in texts:
            return next(texts[kind])
        return str(int(item))

    return [
        [write(i) for i in items(v)]
        if isinstance(v, list | tuple | np.ndarray | pd.Series)
        else write(v)
        for v in values
    ]


def _as_lists(values: pd.Series) -> pd.Series:
    """Make every value of a refs column that mixes lists and scalars a list.

    A string that is a JSON list becomes that list, as a String refs value does on every frame
    (:func:`gradeframe.answer.json_list_refs`, run over the strings at once); any other scalar
    becomes a one-item list.
    """
    items = values.tolist()
    at = [i for i, v in enumerate(items) if isinstance(v, str)]
    decoded = (
        pl.Series("refs", [items[i] for i in at], dtype=pl.String)
        .to_frame()
        .select(answer_rules.json_list_refs(pl.col("refs")))
        .to_series()
        .to_list()
    )
    for i, listed in zip(at, decoded, strict=True):
        if listed is not None:
            items[i] = listed
    lists = [v if isinstance(v, list) or v is None else [v] for v in items]
    return pd.Series(lists, index=values.index, dtype=object)


def _as_json(value: Any) -> Any:
    """Write a value Arrow cannot type as JSON text (text and missing values stay as they are)."""
    if value is None or isinstance(value, str) or (isinstance(value, float) and np.isnan(value)):
        return None if not isinstance(value, str) else value
    return json.dumps(value, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o))


def _arrow_column(series: pd.Series, name: str, role: Role | None) -> pa.Array | pa.ChunkedArray:
    """Read one pandas column as Arrow, coercing messy object columns by role.

    Text with a lone surrogate (which Arrow cannot hold) raises a ValueError naming the column
    and the row.
    """
    try:
        return _arrow_values(series, name, role)
    except UnicodeEncodeError:
        raise _surrogate_row(series, name) from None


def _surrogate_row(series: pd.Series, name: str) -> ValueError:
    """Find the first value holding a lone surrogate (an error path: a loop over the column)."""

    def texts(value: Any) -> Iterable[str]:
        if isinstance(value, str):
            yield value
        elif isinstance(value, dict):
            for key, item in value.items():
                yield from texts(key)
                yield from texts(item)
        elif isinstance(value, list | tuple | np.ndarray | pd.Series):
            for item in value:
                yield from texts(item)

    for position, (label, value) in enumerate(series.items()):
        for text in texts(value):
            at = lone_surrogate(text)
            if at is not None:
                what = "the Series" if name.startswith("__gradeframe") else f"column {name!r}"
                where = f"{what} at row {position} (index {label!r})"
                return surrogate_error(where, text, at)
    at = lone_surrogate(name)  # pragma: no cover - the name itself, else Arrow's own words
    return surrogate_error("a column name", name, at or 0)


def _arrow_values(series: pd.Series, name: str, role: Role | None) -> pa.Array | pa.ChunkedArray:
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
    elif role == "calls":  # lists of calls whose arguments differ in kind: JSON text each
        values = values.map(_as_json)
    elif role == "refs":
        values = pd.Series(_coerce_refs(values.tolist()), index=values.index, dtype=object)
        if values.map(lambda v: isinstance(v, list)).any():
            values = _as_lists(values)
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


def to_pandas_frame(frame: pl.DataFrame) -> pd.DataFrame:
    """Return a new pandas frame: Int64 as int64, String as the pandas string dtype."""
    return pd.DataFrame({name: to_pandas_column(frame.get_column(name)) for name in frame.columns})
