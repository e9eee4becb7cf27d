"""Run a costly step on the few rows that need it, and put the results back in place.

Several steps of gradeframe change only a minority of rows (texts with a thousands separator or
an unusual space; matches whose first occurrence breaks a boundary rule). Running such a step
over every row costs a full pass over the text even where it changes nothing, and masking the
other rows to an empty text still costs a pass over every row per regex. :func:`on_rows` instead
takes the rows out, runs the step (the same Polars expressions) on them alone and scatters the
results back by position. It is one ``map_batches`` over whole batches, marked elementwise, so
it streams; there is no Python loop over rows.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

__all__ = ["on_rows"]

_ROW = "__gradeframe_row__"


def on_rows(
    needed: pl.Expr,
    columns: dict[str, pl.Expr],
    step: pl.Expr,
    *,
    otherwise: Callable[[pl.DataFrame], pl.Series],
    dtype: pl.DataType,
) -> pl.Expr:
    """Return ``step`` evaluated on the rows where ``needed`` is true, ``otherwise`` elsewhere.

    Parameters
    ----------
    needed
        A Boolean expression; null counts as false.
    columns
        The inputs of ``step``, by the column names ``step`` reads them as.
    step
        An expression over ``columns``, evaluated on the needed rows only.
    otherwise
        Builds the whole result column from the batch's ``columns`` (the needed rows are then
        overwritten with the step's results).
    dtype
        The result's dtype.
    """

    def run(batch: pl.Series) -> pl.Series:
        frame = batch.struct.unnest()
        result = otherwise(frame)
        rows = frame.with_row_index(_ROW).filter(pl.col(_ROW + "needed"))
        if rows.height:
            done = rows.select(_ROW, step.alias("value"))
            result = result.scatter(done.get_column(_ROW), done.get_column("value"))
        return result.alias(batch.name)

    inputs = pl.struct(**columns, **{_ROW + "needed": needed.fill_null(value=False)})
    return inputs.map_batches(run, return_dtype=dtype, is_elementwise=True)
