"""gradeframe on Ray: grading functions and ``report`` for ``ray.data.Dataset``.

Nothing here scores anything. Each function runs Ray Data's ``map_batches`` with
``batch_format="pyarrow"``: every batch (of up to :data:`ROWS_PER_CALL` rows) becomes a Polars
frame, and the Polars ``.grade`` namespace grades it, with the same expressions as everywhere
else. The work per batch is :mod:`gradeframe._arrow`'s, the very code Spark's ``mapInArrow`` runs
(one kernel for both engines).

- Grading functions (:func:`answer_contains`, the matchers and :func:`equivalent`) return a
  Dataset (lazy, like any Ray Dataset): the input columns, of their Arrow types, and the added
  ones. The output schema comes from grading an empty frame of the input's schema, which also
  checks the arguments when the call is made. Reading the schema of a Dataset that is itself
  the output of a transformation may make Ray compute one block.
- :func:`report` has every batch count its answers per group (and per cluster), sums the counts
  on the driver and builds the report once from the sums (the interval of a sum, never an
  average of intervals). It returns pandas, like :func:`gradeframe.report` on pandas.
- :func:`pass_at_k`, :func:`consistency` and :func:`flaky` the same way, from per-item counts
  (and votes) summed on the driver. They return pandas.

Rows keep their order within each batch; whether blocks come back in the Dataset's order is
Ray's choice (``DataContext.get_current().execution_options.preserve_order = True`` asks for
it). ``ray`` is imported when a function is called, not when this module is imported, and
``import gradeframe`` does not import this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import polars as pl
import pyarrow as pa

from gradeframe import _arrow
from gradeframe._engines import SamplesCall, Summed, summaries

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from ray.data import Dataset

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

#: Rows graded per ``map_batches`` call (Ray bundles smaller blocks up to this size).
ROWS_PER_CALL = _arrow.ROWS_PER_CALL


def _arrow_schema(ds: Dataset) -> pa.Schema:
    """Return a Dataset's schema as an Arrow schema."""
    schema = ds.schema(fetch_if_missing=True)
    if schema is None:
        msg = "the Dataset has no schema (no rows and no columns): nothing to grade"
        raise ValueError(msg)
    base = schema.base_schema
    if isinstance(base, pa.Schema):
        return base
    return pa.schema(
        [
            pa.field(name, kind if isinstance(kind, pa.DataType) else pa.string())
            for name, kind in zip(schema.names, schema.types, strict=True)
        ]
    )


def _output_schema(schema: pa.Schema, graded: pl.DataFrame) -> pa.Schema:
    """Return the input's fields as they are, then the added columns (plain Arrow types)."""
    added = graded.drop(schema.names).to_arrow(compat_level=pl.CompatLevel.oldest()).schema
    return pa.schema([*schema, *added])


# --------------------------------------------------------------------------------------------
# Grading functions: the Polars namespace per batch
# --------------------------------------------------------------------------------------------


def _grading(method: str) -> Callable[..., Any]:
    """Make a Ray function that runs the Polars namespace's ``method`` on every batch."""

    def run(ds: Dataset, *args: Any, **kwargs: Any) -> Dataset:
        schema = _arrow_schema(ds)
        # The empty frame: checks every argument and gives the output schema.
        meta = _arrow.graded_empty(schema, method, args, kwargs)
        return ds.map_batches(
            _arrow.grade_table,
            batch_format="pyarrow",
            batch_size=ROWS_PER_CALL,
            zero_copy_batch=True,
            fn_kwargs={
                "method": method,
                "args": args,
                "kwargs": kwargs,
                "schema": _output_schema(schema, meta),
            },
        )

    run.__name__ = run.__qualname__ = method
    run.__doc__ = f"""Run ``{method}`` on every batch of a Ray Dataset.

    The arguments are those of :func:`gradeframe.{method}` (column names as strings); they are
    checked on an empty frame when the call is made.

    Parameters
    ----------
    ds
        A ``ray.data.Dataset``.
    *args, **kwargs
        As for ``{method}`` on a Polars DataFrame.

    Returns
    -------
    ray.data.Dataset
        The input columns and the added ones (lazy, like any Ray Dataset).
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


def _report(ds: Dataset, options: dict[str, Any]) -> pd.DataFrame:
    """Count every batch's rows per group; the report from the sums (see :func:`report`)."""
    _, empty_counts, read = _arrow.report_plan(_arrow_schema(ds), options)
    counted = ds.select_columns(read).map_batches(
        _arrow.count_table,
        batch_format="pyarrow",
        batch_size=ROWS_PER_CALL,
        zero_copy_batch=True,
        fn_kwargs={"options": options},
    )
    pieces = [row["counts"] for row in counted.take_all()]
    return _arrow.summed_report(pieces, empty_counts, options)


# --------------------------------------------------------------------------------------------
# Repeated samples: per-item counts summed on the driver
# --------------------------------------------------------------------------------------------


def _summed_samples(ds: Dataset, call: SamplesCall) -> Summed:
    """Check the arguments on an empty frame, then sum every batch's counts on the driver."""

    def count(columns: list[str], options: dict[str, Any]) -> list[tuple[bytes, bytes | None]]:
        counted = ds.select_columns(columns).map_batches(
            _arrow.sample_table,
            batch_format="pyarrow",
            batch_size=ROWS_PER_CALL,
            zero_copy_batch=True,
            fn_kwargs=options,
        )
        return [(row["counts"], row["votes"]) for row in counted.take_all()]

    return _arrow.summed_samples(_arrow_schema(ds), call, count)


report, pass_at_k, consistency, flaky = summaries(__name__, _report, _summed_samples)
