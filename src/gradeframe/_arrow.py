"""The Arrow-batch kernel the engines share: Spark's ``mapInArrow`` and Ray's ``map_batches``.

An engine hands gradeframe Arrow data a piece at a time; each piece becomes a Polars frame and
the Polars ``.grade`` namespace grades it, with the same expressions as everywhere else. This
module is that piece of work, written once:

- :func:`grade_table`: grade one Arrow table with a namespace method, cast to the output schema.
- :func:`count_table`: a report's counts of one table (:func:`gradeframe.report_counts`), as one
  row of Arrow IPC bytes; :func:`summed_report` builds the report from every piece's counts.
- :func:`sample_table`: the per-item sample counts (and votes) of one table, likewise;
  :func:`summed_sample_counts` sums them.
- :func:`regrouped` collects small record batches into tables of about :data:`ROWS_PER_CALL`
  rows (Spark hands over 10,000-row batches; gradeframe has a fixed cost per call).

The driver-side checks (:func:`report_plan`, :func:`samples_plan`) run the same functions on an
empty frame of the input's schema, so bad arguments raise before any data is read. Nothing here
imports an engine.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

import polars as pl
import pyarrow as pa

from gradeframe import samples as sample_rules
from gradeframe._cost import input_columns as cost_columns
from gradeframe._engines import SamplesCall, Summed, counted_samples
from gradeframe._inputs import IntoExpr
from gradeframe._summary_inputs import pandas_report_columns
from gradeframe.report import report_counts, report_from_counts

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "COUNTS_SCHEMA",
    "ROWS_PER_CALL",
    "SAMPLES_SCHEMA",
    "count_table",
    "empty",
    "grade_table",
    "graded_empty",
    "regrouped",
    "report_plan",
    "sample_table",
    "samples_plan",
    "summed_report",
    "summed_sample_counts",
    "summed_samples",
]

#: Rows graded per call (an engine's small batches are regrouped to this size).
ROWS_PER_CALL: Final = 100_000

#: The schema of a report's counts: one row per piece, Arrow IPC bytes.
COUNTS_SCHEMA: Final = pa.schema([("counts", pa.binary())])
#: The schema of the samples' counts and votes: one row per piece, Arrow IPC bytes (votes null
#: without ``answer``).
SAMPLES_SCHEMA: Final = pa.schema([("counts", pa.binary()), ("votes", pa.binary())])


def empty(schema: pa.Schema) -> pl.DataFrame:
    """Return an empty Polars frame of an Arrow schema."""
    return pl.from_arrow(schema.empty_table())  # type: ignore[return-value]


def _polars(table: pa.Table | pa.RecordBatch) -> pl.DataFrame:
    return pl.from_arrow(table, rechunk=False)  # type: ignore[return-value]


def _ipc(frame: pl.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.write_ipc(buffer)
    return buffer.getvalue()


def regrouped(batches: Iterable[pa.RecordBatch], rows: int = ROWS_PER_CALL) -> Iterator[pa.Table]:
    """Collect consecutive Arrow batches into tables of at least ``rows`` rows (the last: less).

    Parameters
    ----------
    batches
        Record batches, as Spark hands them to a ``mapInArrow`` function.
    rows
        The number of rows to collect before a table is yielded.

    Yields
    ------
    pyarrow.Table
        The batches' rows in their order; together they hold every row once.

    Examples
    --------
    >>> import pyarrow as pa
    >>> batches = [pa.record_batch({"x": list(range(n))}) for n in (3, 3, 3, 1)]
    >>> [t.num_rows for t in regrouped(batches, rows=5)]
    [6, 4]
    """
    buffer: list[pa.RecordBatch] = []
    count = 0
    for batch in batches:
        if batch.num_rows == 0:
            continue
        buffer.append(batch)
        count += batch.num_rows
        if count >= rows:
            yield pa.Table.from_batches(buffer)
            buffer, count = [], 0
    if buffer:
        yield pa.Table.from_batches(buffer)


# --------------------------------------------------------------------------------------------
# Grading
# --------------------------------------------------------------------------------------------


def graded_empty(
    schema: pa.Schema, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> pl.DataFrame:
    """Grade an empty frame of ``schema``: checks every argument, gives the output columns."""
    return getattr(empty(schema).grade, method)(*args, **kwargs)


def grade_table(
    table: pa.Table,
    *,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    schema: pa.Schema,
) -> pa.Table:
    """Grade one Arrow table with the Polars namespace's ``method``, cast to ``schema``.

    Parameters
    ----------
    table
        The rows, as an engine hands them over.
    method, args, kwargs
        The ``.grade`` method and its arguments.
    schema
        The output schema (the input columns and the added ones), which every piece shares.

    Returns
    -------
    pyarrow.Table
        The same rows in the same order, with the added columns.

    Examples
    --------
    >>> import pyarrow as pa
    >>> table = pa.table({"answer": ["It was 1987.", "1988"], "refs": ["1987", "1987"]})
    >>> args = ("answer", "refs")
    >>> schema = graded_empty(table.schema, "answer_contains", args, {}).to_arrow().schema
    >>> out = grade_table(table, method="answer_contains", args=args, kwargs={}, schema=schema)
    >>> out.column("correct").to_pylist()
    [True, False]
    """
    import gradeframe  # noqa: F401  (registers .grade in an engine's worker)

    graded = getattr(_polars(table).grade, method)(*args, **kwargs)
    return graded.to_arrow().cast(schema)


# --------------------------------------------------------------------------------------------
# report: counts per piece, the report from their sums
# --------------------------------------------------------------------------------------------


def report_plan(
    schema: pa.Schema, options: dict[str, Any]
) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """Check a report's arguments on an empty frame of ``schema``, before any data is read.

    Returns the empty input, its (empty) counts, and the columns the counts read.
    """
    empty_input = empty(schema)
    empty_counts = report_counts(empty_input, **options)
    read = pandas_report_columns(
        empty_input,
        options["by"],
        options["correct"],
        options["failure_kind"],
        options["prefix"],
        options["cluster"],
        options["score"],
    )
    if options.get("cost") is not None:  # the token, cost and time columns the prices name
        read |= dict.fromkeys(cost_columns(empty_input.columns, options["cost"]))
    return empty_input, empty_counts, list(read)


def count_table(table: pa.Table, *, options: dict[str, Any]) -> pa.Table:
    """Count one table's rows per group (and cluster): one row of Arrow IPC bytes."""
    counts = _ipc(report_counts(_polars(table), **options))
    return pa.table([pa.array([counts], pa.binary())], schema=COUNTS_SCHEMA)


def summed_report(
    pieces: Sequence[bytes], empty_counts: pl.DataFrame, options: dict[str, Any]
) -> pd.DataFrame:
    """Build the report once from every piece's counts (never from the pieces' intervals)."""
    from gradeframe import _frames

    counts = [pl.read_ipc(io.BytesIO(piece)) for piece in pieces]
    # report_from_counts sums repeated keys (a kind column a piece lacks counts 0).
    stacked = pl.concat([empty_counts, *counts], how="diagonal_relaxed")
    out = report_from_counts(
        stacked, options["by"], cluster=options["cluster"], score=options["score"]
    )
    return _frames.to_pandas_frame(out)


# --------------------------------------------------------------------------------------------
# Repeated samples: per-item counts per piece, summed once
# --------------------------------------------------------------------------------------------


def samples_plan(
    schema: pa.Schema, call: SamplesCall
) -> tuple[list[str], list[str], list[str], pl.DataFrame]:
    """Check a samples function's arguments on an empty frame, before any data is read.

    Returns the columns it reads, the group and item columns, and the empty input (those
    columns).
    """
    empty_input = empty(schema)
    correct, answer = call.correct, call.answer
    columns, groups, items = sample_rules.pandas_columns(
        empty_input, call.by, call.on, correct, answer
    )
    empty_read = empty_input.select(list(columns))
    groups, items, _, _ = sample_rules.prepare(
        empty_read, call.function, groups, items, correct, answer, call.outputs
    )
    return list(columns), groups, items, empty_read


def summed_samples(
    schema: pa.Schema,
    call: SamplesCall,
    count: Callable[[list[str], dict[str, Any]], Sequence[tuple[bytes, bytes | None]]],
) -> Summed:
    """Check a samples call on an empty frame, have the engine count, and sum the counts.

    ``count(columns, options)`` runs :func:`sample_table` (``options`` are its keywords) on
    every piece of the input's ``columns`` and returns the pieces' (counts, votes).
    """
    vote = sample_rules.resolve_vote(call.vote, schema.names)
    columns, groups, items, empty_read = samples_plan(schema, call)
    correct, answer = call.correct, call.answer
    options = {"groups": groups, "items": items, "correct": correct, "answer": answer}
    pieces = count(columns, {**options, "vote": vote})
    counts, votes = summed_sample_counts(pieces, empty_read, groups, items, correct, answer, vote)
    return groups, items, counts, votes


def sample_table(table: pa.Table | pa.RecordBatch, **options: Any) -> pa.Table:
    """Count one table's samples per group and item (and votes): one row of IPC bytes.

    ``options`` are :func:`gradeframe._engines.counted_samples`'s keywords (``groups``,
    ``items``, ``correct``, ``answer``, ``vote``).
    """
    counts, votes = counted_samples(_polars(table), **options)
    counts, votes = _ipc(counts), None if votes is None else _ipc(votes)
    return pa.table(
        [pa.array([counts], pa.binary()), pa.array([votes], pa.binary())], schema=SAMPLES_SCHEMA
    )


def summed_sample_counts(
    pieces: Sequence[tuple[bytes, bytes | None]],
    empty: pl.DataFrame,
    groups: list[str],
    items: list[str],
    correct: str,
    answer: IntoExpr | None,
    vote: str = "fold",
) -> tuple[pl.LazyFrame, pl.LazyFrame | None]:
    """Sum the counts (and votes) of every piece: the counts of the whole frame.

    ``pieces`` holds what :func:`sample_table` made (counts, votes); ``empty`` is an empty
    frame of the input's schema, whose counts give the dtypes when no piece had a row.
    """
    keys = [*groups, *items]
    empty_counts = sample_rules.sample_counts(empty, groups, items, correct).collect()
    counts = [pl.read_ipc(io.BytesIO(c)) for c, _ in pieces] or [empty_counts]
    summed = sample_rules.summed(pl.concat(counts, how="vertical_relaxed").lazy(), keys)
    if answer is None:
        return summed, None
    votes = [pl.read_ipc(io.BytesIO(v)) for _, v in pieces if v is not None]
    if not votes:
        votes = [sample_rules.vote_counts(empty, groups, items, correct, answer, vote).collect()]
    stacked = pl.concat(votes, how="vertical_relaxed").lazy()
    return summed, sample_rules.summed(stacked, [*keys, *sample_rules.VOTE_KEYS])
