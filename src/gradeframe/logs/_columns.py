"""What the readers of frame-shaped logs share: typed field access and the column order.

Every Eval Ever, Phoenix, LangSmith, Braintrust and DeepEval.

These tools write one record per attempt with the same fields on every record, so their logs are
parsed by Polars itself (``read_ndjson``, ``read_csv``, ``read_parquet``, or a frame built once
from the records) and mapped with expressions: no Python per row. A field of an unexpected type
is a :class:`LogFormatError` naming the file and the field.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import polars as pl

from gradeframe.logs._common import IDENTITY, MEASURES, PathLike, log_error

#: Columns the new readers add beside the common ones (the grader's failure, more usage).
VERDICT: dict[str, pl.DataType] = {"tool_failure": pl.String()}
USAGE: dict[str, pl.DataType] = {
    "cache_read_tokens": pl.Int64(),
    "reasoning_tokens": pl.Int64(),
    "cost": pl.Float64(),
}

#: What a field may hold: a name for the error message and the dtypes that fit.
#: (what the message calls it, the dtypes that fit, the dtype of the field where it is absent)
_INTEGERS = (pl.Int64, pl.Int32, pl.Int16, pl.Int8, pl.UInt64, pl.UInt32)
TEXT = ("text", (pl.String, pl.Null), pl.String())
NUMBER = ("a number", (pl.Float64, pl.Float32, *_INTEGERS, pl.Null), pl.Float64())
INTEGER = ("a whole number", (*_INTEGERS, pl.Null), pl.Int64())
BOOLEAN = ("true or false", (pl.Boolean, pl.Null), pl.Boolean())
SCALAR = ("a text or a number", (pl.String, *NUMBER[1], pl.Boolean), pl.String())
TEXTS = ("a list of texts", (pl.List, pl.Null), pl.List(pl.String))
RECORDS = ("a list of objects", (pl.List, pl.Null), pl.Null())
OBJECT = ("an object", (pl.Struct, pl.Null), pl.Null())


def dtype_at(schema: Mapping[str, pl.DataType], path: Sequence[str]) -> pl.DataType | None:
    """Return the dtype of a nested field (``("input", "raw")``), None when it is absent."""
    dtype: pl.DataType | None = pl.Struct(dict(schema))
    for name in path:
        if isinstance(dtype, pl.Struct):
            fields = {f.name: f.dtype for f in dtype.fields}
            dtype = fields.get(name)
        else:
            return None
        if dtype is None:
            return None
    return dtype


def field(
    frame: pl.DataFrame | pl.LazyFrame,
    where: PathLike,
    path: str,
    kind: tuple[str, tuple[type[pl.DataType], ...], pl.DataType],
    *,
    inner: tuple[type[pl.DataType], ...] | None = None,
    dtype: pl.DataType | None = None,
) -> pl.Expr:
    """Return the expression for a dotted field; null where absent, an error naming it if mistyped.

    ``inner`` checks the element dtype of a list field; ``dtype`` casts the result.
    """
    parts = path.split(".")
    schema = frame.collect_schema() if isinstance(frame, pl.LazyFrame) else frame.schema
    found = dtype_at(schema, parts)
    name, fits, absent = kind
    if found is None or isinstance(found, pl.Null):  # absent, or null on every line
        return pl.lit(None, dtype=dtype or absent)
    bad = not isinstance(found, fits)
    if not bad and inner is not None and isinstance(found, pl.List):
        bad = not isinstance(found.inner, (*inner, pl.Null))
    if bad:
        problem = f"field {path!r} holds {found}, not {name}; the log is corrupt or not this format"
        raise log_error(where, problem)
    expr = pl.col(parts[0])
    for part in parts[1:]:
        expr = expr.struct.field(part)
    if dtype is not None and found != dtype:
        expr = expr.cast(dtype, strict=False)
    return expr


def finish(frame: pl.DataFrame, extras: Mapping[str, pl.DataType]) -> pl.DataFrame:
    """Order and type a reader's columns: the common ones, the verdict and usage, the extras."""
    schema = {**IDENTITY, **VERDICT, **MEASURES, **USAGE, **extras}
    columns = [name for name in schema if name in frame.columns]
    return frame.select(pl.col(name).cast(schema[name]) for name in columns)


def path_text(path: PathLike) -> str:
    return os.fspath(path)
