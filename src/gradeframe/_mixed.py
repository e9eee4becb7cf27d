"""A pandas object column that mixes text, numbers and booleans, carried through Arrow intact.

Arrow has no union type that Polars reads, and reading such a column as it is either fails
(``["a", 1]``) or silently coerces (``[1.5, True]`` becomes ``[1.5, 1.0]``). Both break the rule
of :func:`gradeframe.exact_match` that a string, a number and a boolean are never equal to one
another. So the pandas accessor splits such a column into a struct with one field per kind of
value (at most one of them non-null in each row), and the matchers read the struct back as
"a value that is text, a number or a boolean". The field names are chosen so that no ordinary
struct column is mistaken for one.
"""

from __future__ import annotations

from numbers import Real
from typing import Any, Final

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa

TEXT: Final = "__gradeframe_text__"
NUMBER: Final = "__gradeframe_number__"
BOOLEAN: Final = "__gradeframe_boolean__"
FIELDS: Final = (TEXT, NUMBER, BOOLEAN)


def is_mixed(dtype: pl.DataType) -> bool:
    """Return whether a dtype is the struct :func:`split_mixed` builds."""
    return isinstance(dtype, pl.Struct) and tuple(f.name for f in dtype.fields) == FIELDS


def _kind(value: Any) -> str:
    if value is None or value is pd.NA or value is pd.NaT:
        return "null"
    if isinstance(value, str):
        return "text"
    if isinstance(value, bool | np.bool_):
        return "boolean"
    if isinstance(value, Real):
        return "null" if value != value else "number"  # NaN is missing, as pandas reads it
    return "other"


def split_mixed(series: pd.Series) -> pa.StructArray | None:
    """Split an object column mixing text, numbers and booleans into one struct per row.

    Returns None when the column holds one kind of value (Arrow reads it as it is) or holds
    anything else (dates, lists, ...), which is left to the ordinary conversion and its errors.
    This is one pass over the Python objects the column already holds, to convert it; no
    scoring happens here.
    """
    values = series.astype(object).tolist()
    kinds = [_kind(v) for v in values]
    present = set(kinds) - {"null"}
    if "other" in present or len(present) < 2:
        return None
    text = [v if k == "text" else None for v, k in zip(values, kinds, strict=True)]
    numbers = [v if k == "number" else None for v, k in zip(values, kinds, strict=True)]
    booleans = [bool(v) if k == "boolean" else None for v, k in zip(values, kinds, strict=True)]
    try:
        number_array = pa.array(numbers, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        number_array = pa.array([None if v is None else float(v) for v in numbers], pa.float64())
    if pa.types.is_null(number_array.type):
        number_array = number_array.cast(pa.float64())
    return pa.StructArray.from_arrays(
        [pa.array(text, pa.string()), number_array, pa.array(booleans, pa.bool_())],
        names=list(FIELDS),
    )
