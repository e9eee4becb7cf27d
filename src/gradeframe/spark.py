"""gradeframe on Spark: grading functions and ``report`` for ``pyspark.sql.DataFrame``.

Nothing here scores anything. Each function runs Spark's ``mapInArrow``: the Arrow batches of a
partition are regrouped into tables of about :data:`ROWS_PER_CALL` rows (gradeframe has a fixed
cost of some milliseconds per call, and Spark's batches hold 10,000 rows), each table becomes a
Polars frame, and the Polars ``.grade`` namespace grades it, with the same expressions as
everywhere else. No pandas is involved. The work per table is :mod:`gradeframe._arrow`'s, which
``gradeframe.ray`` runs too (one kernel for both engines).

- Grading functions (:func:`answer_contains` and the matchers) return a Spark DataFrame: the
  input columns and the added ones. The output schema comes from grading an empty frame of the
  input's schema, which also checks the arguments before any data is read.
- :func:`report` has every partition count its answers per group (and per cluster), sums the
  counts on the driver and builds the report once from the sums (the interval of a sum, never
  an average of intervals). It returns pandas, like :func:`gradeframe.report` on pandas.
- :func:`pass_at_k`, :func:`consistency` and :func:`flaky` the same way: every task counts its
  samples per group and item (and votes per folded answer), the driver sums the counts (an
  item's samples may sit in several partitions) and computes the statistics once. They return
  pandas.

``pyspark`` is imported when a function is called, not when this module is imported.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from gradeframe import _arrow
from gradeframe._arrow import regrouped
from gradeframe._engines import SamplesCall, Summed, summaries
from gradeframe._inputs import IntoExpr

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from pyspark.sql import DataFrame as SparkFrame

__all__ = [
    "ROWS_PER_CALL",
    "answer_contains",
    "choice",
    "consistency",
    "equivalent",
    "exact_match",
    "f1",
    "flaky",
    "includes",
    "judge",
    "matches",
    "pass_at_k",
    "report",
    "tool_calls",
    "within",
]

#: Rows graded per call inside a Spark task (Spark's Arrow batches are regrouped to this size).
ROWS_PER_CALL = _arrow.ROWS_PER_CALL


def _arrow_schema(sdf: SparkFrame) -> pa.Schema:
    from pyspark.sql.pandas.types import to_arrow_schema

    return to_arrow_schema(sdf.schema, prefers_large_types=False)


# --------------------------------------------------------------------------------------------
# Grading functions: the Polars namespace per regrouped table
# --------------------------------------------------------------------------------------------


def _grade_batches(
    batches: Iterable[pa.RecordBatch],
    *,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    schema: pa.Schema,
    rows: int,
) -> Iterator[pa.RecordBatch]:
    for table in regrouped(batches, rows):
        graded = _arrow.grade_table(table, method=method, args=args, kwargs=kwargs, schema=schema)
        yield from graded.to_batches()


def _grading(method: str) -> Callable[..., Any]:
    """Make a Spark function that runs the Polars namespace's ``method`` on every partition."""

    def run(sdf: SparkFrame, *args: Any, **kwargs: Any) -> SparkFrame:
        from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

        # The empty frame: checks every argument and gives the output schema.
        meta = _arrow.graded_empty(_arrow_schema(sdf), method, args, kwargs)
        spark_schema = from_arrow_schema(meta.to_arrow().schema)
        arrow_schema = to_arrow_schema(spark_schema, prefers_large_types=False)
        grade = functools.partial(
            _grade_batches,
            method=method,
            args=args,
            kwargs=kwargs,
            schema=arrow_schema,
            rows=ROWS_PER_CALL,
        )
        return sdf.mapInArrow(grade, spark_schema)

    run.__name__ = run.__qualname__ = method
    run.__doc__ = f"""Run ``{method}`` on every partition of a Spark DataFrame.

    The arguments are those of :func:`gradeframe.{method}` (column names as strings); they are
    checked on an empty frame before any data is read.

    Parameters
    ----------
    sdf
        A Spark DataFrame.
    *args, **kwargs
        As for ``{method}`` on a Polars DataFrame.

    Returns
    -------
    pyspark.sql.DataFrame
        The input columns and the added ones (lazy, like any Spark DataFrame).
    """
    return run


answer_contains = _grading("answer_contains")
exact_match = _grading("exact_match")
includes = _grading("includes")
matches = _grading("matches")
within = _grading("within")
choice = _grading("choice")
f1 = _grading("f1")
equivalent = _grading("equivalent")
judge = _grading("judge")
tool_calls = _grading("tool_calls")


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


def _count_batches(
    batches: Iterable[pa.RecordBatch], *, options: dict[str, Any], rows: int
) -> Iterator[pa.RecordBatch]:
    for table in regrouped(batches, rows):
        yield from _arrow.count_table(table, options=options).to_batches()


def _report(sdf: SparkFrame, options: dict[str, Any]) -> pd.DataFrame:
    """Count every task's rows per group; the report from the sums (see :func:`report`)."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    # Arguments and columns are checked on an empty frame, before any data is read.
    _, empty_counts, read = _arrow.report_plan(_arrow_schema(sdf), options)
    count = functools.partial(_count_batches, options=options, rows=ROWS_PER_CALL)
    schema = StructType([StructField("counts", BinaryType())])
    blobs = sdf.select(*read).mapInArrow(count, schema).collect()
    return _arrow.summed_report([row["counts"] for row in blobs], empty_counts, options)


# --------------------------------------------------------------------------------------------
# Repeated samples: per-item counts summed on the driver
# --------------------------------------------------------------------------------------------


def sample_batches(
    batches: Iterable[pa.RecordBatch],
    *,
    groups: list[str],
    items: list[str],
    correct: str,
    answer: IntoExpr | None,
    rows: int = ROWS_PER_CALL,
    vote: str = "fold",
) -> Iterator[pa.RecordBatch]:
    """Count samples per group and item (and votes) in a task's batches, as Arrow IPC bytes.

    The ``mapInArrow`` function of :func:`pass_at_k`, :func:`consistency` and :func:`flaky`:
    one record batch per regrouped table, holding its counts (and votes, or null).
    """
    for table in regrouped(batches, rows):
        yield from _arrow.sample_table(
            table, groups=groups, items=items, correct=correct, answer=answer, vote=vote
        ).to_batches()


def _summed_samples(sdf: SparkFrame, call: SamplesCall) -> Summed:
    """Check the arguments on an empty frame, then sum every task's counts on the driver."""
    from pyspark.sql.types import BinaryType, StructField, StructType

    def count(columns: list[str], options: dict[str, Any]) -> list[tuple[bytes, bytes | None]]:
        task = functools.partial(sample_batches, **options)
        schema = StructType([StructField(name, BinaryType()) for name in ("counts", "votes")])
        rows = sdf.select(*columns).mapInArrow(task, schema).collect()
        return [(row["counts"], row["votes"]) for row in rows]

    return _arrow.summed_samples(_arrow_schema(sdf), call, count)


report, pass_at_k, consistency, flaky = summaries(__name__, _report, _summed_samples)
