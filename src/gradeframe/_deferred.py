"""The expression form without a schema: one mechanism for answer_contains and the matchers.

An expression function called without the frame's schema (``gf.answer_contains("answer",
"refs")`` in the user's own ``select``) cannot know its inputs' dtypes when it is built, and the
rules depend on them (a struct output record or text; one acceptable answer or a list; text or
numbers). So the rule's *expression* is built when the data arrives, from the dtypes it has, by
:func:`deferred`: one ``map_batches`` call over whole columns (never row by row) turns the
inputs into a frame and hands it to ``grade``, which builds the same expression the frame
functions build (never the frame function itself, which takes the grading lock of
:mod:`gradeframe._threads`: a callback runs on Polars' threads, where waiting for the lock can
deadlock).

Scalar inputs (``pl.lit(...)``) broadcast as any Polars argument does: a length-1 input is
repeated to the height of the others.

The call is elementwise, so that ``group_by().agg()`` and ``over()`` make one call over all
groups instead of one per group. Inside ``when/then`` Polars hands over the rows the condition
leaves out as nulls (its rows are masked, not removed); a marker input, true on every row, tells
them apart: where the marker is null the row is not graded and its result is null (Polars
discards it), so a masked row never raises as a null expected value would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import polars as pl

__all__ = ["broadcast", "deferred"]


def broadcast(expr: pl.Expr) -> pl.Expr:
    """Repeat a literal to the frame's height, so that every stage of a rule has one length."""
    if expr.meta.is_literal(allow_aliasing=True):
        return pl.repeat(expr, pl.len())
    return expr


def deferred(
    inputs: Mapping[str, pl.Expr],
    grade: Callable[[pl.DataFrame], pl.Series],
    *,
    return_dtype: pl.DataType,
    name: str,
) -> pl.Expr:
    """Return an expression that grades when the data arrives, knowing its dtypes.

    Parameters
    ----------
    inputs
        The input expressions, by the column name each gets in the frame ``grade`` receives
        (batches are named by position: in ``group_by().agg()`` and ``over()`` Polars hands
        them over as ``column_0``, ``column_1``, ...).
    grade
        Builds the rule's expression from the frame's schema and returns its result, one value
        per row of the frame.
    return_dtype
        The dtype ``grade`` returns.
    name
        The expression's output name.

    Examples
    --------
    >>> import polars as pl
    >>> df = pl.DataFrame({"a": [1, 2, 3]})
    >>> def grade(frame: pl.DataFrame) -> pl.Series:
    ...     return frame.select(pl.col("a") + pl.col("b")).to_series()
    >>> df.select(deferred({"a": pl.col("a"), "b": pl.lit(10)}, grade,
    ...                    return_dtype=pl.Int64(), name="sum"))
    shape: (3, 1)
    ┌─────┐
    │ sum │
    │ --- │
    │ i64 │
    ╞═════╡
    │ 11  │
    │ 12  │
    │ 13  │
    └─────┘
    """
    names = list(inputs)

    def run(series: Sequence[pl.Series]) -> pl.Series:
        *values, marker = series
        height = max(len(s) for s in values)
        columns = [
            (s if len(s) == height else s.new_from_index(0, height)).alias(column)
            for s, column in zip(values, names, strict=True)
        ]
        frame = pl.DataFrame(columns)
        masked = marker.is_null() if len(marker) == height else None
        if masked is not None and masked.any():
            kept = ~masked
            graded = grade(frame.filter(kept))
            # position of each kept row among the kept rows; null where the row is masked
            index = pl.select(pl.when(kept).then(kept.cum_sum() - 1)).to_series()
            return graded.gather(index)
        return grade(frame)

    marker = pl.repeat(True, pl.len())
    return pl.map_batches(
        [*inputs.values(), marker], run, return_dtype=return_dtype, is_elementwise=True
    ).alias(name)
