"""Reports on graded frames: accuracy with its interval and failure counts (listings: failures.py).

Everything is a Polars expression over the graded columns (``correct`` and ``failure_kind``, as
:func:`gradeframe.answer_contains` adds them, or ``correct`` alone from a matcher). A pandas
frame goes through Arrow to Polars and its result comes back as a new pandas frame.

A report is computed in two steps, each public so that distributed engines can run the first on
every partition and the second once: :func:`report_counts` counts (every column additive), and
:func:`report_from_counts` turns summed counts into the report. :func:`report` is exactly
``report_from_counts(report_counts(...))``.

Carried failure kinds (any non-null ``failure_kind`` that is not one of
:data:`gradeframe.KINDS`) become columns of the report, so their names must be known before the
query runs. On a LazyFrame, :func:`report_counts` finds them by collecting the distinct values of
the ``failure_kind`` column alone (one pass over the input, no more memory than the distinct
kinds); pass ``carried_kinds=[...]`` to name them yourself and keep the query entirely lazy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import polars as pl

from gradeframe import _cost, kinds
from gradeframe._from_counts import statistics, summed_counts
from gradeframe._inputs import (
    check_column,
    check_prefix,
    frame_schema,
)
from gradeframe._summary_inputs import (
    By,
    by_columns,
    carried_kind_names,
    check_frame,
    column_name,
    correct_expr,
    default_name,
    is_pandas,
    kind_expr,
    on_pandas,
    pandas_report_columns,
    returns_same_kind,
    same_kind,
    score_expr,
)
from gradeframe._threads import one_at_a_time
from gradeframe.stats import (
    Z_95,
    ordered_sum,
    wilson_interval,
)

__all__ = [
    "WILSON_Z",
    "report",
    "report_counts",
    "report_from_counts",
    "wilson_interval",
]


#: The normal quantile for a two-sided 95 % interval (kept under its old name).
WILSON_Z: Final = Z_95

#: The statistics columns of a report, in order, after the group columns.
STAT_COLUMNS: Final = ("n", "n_correct", "accuracy", "ci_low", "ci_high")

#: Added with ``cluster=``.
CLUSTER_COLUMNS: Final = ("n_clusters",)

#: Added with ``score=``.
SCORE_COLUMNS: Final = ("mean_score", "score_ci_low", "score_ci_high")

#: The additive columns of :func:`report_counts` besides the failure kinds.
COUNT_COLUMNS: Final = ("n", "n_correct")
SCORE_COUNT_COLUMNS: Final = ("score_n", "score_sum", "score_sumsq")

# --------------------------------------------------------------------------------------------
# report_counts: the additive step
# --------------------------------------------------------------------------------------------


@one_at_a_time
@returns_same_kind
def report_counts(
    frame: Any,
    by: By = None,
    *,
    correct: str = "correct",
    failure_kind: str | None = "failure_kind",
    prefix: str = "",
    cluster: str | None = None,
    score: str | None = None,
    carried_kinds: Sequence[str] | None = None,
    cost: Any = None,
) -> Any:
    """Count what a report needs, in columns that add up across partitions.

    One row per group of ``by`` (and per ``cluster`` value within it, when given), sorted by
    those key columns (nulls last); every other column is a sum:

    - ``n`` (Int64): rows; ``n_correct`` (Int64): right ones (a null ``correct`` is not right);
    - one Int64 count per failure kind, when the frame has a failure-kind column: the seven of
      :data:`gradeframe.KINDS` always, in table order, then the carried kinds, sorted;
    - with ``score``: ``score_n`` (Int64, rows with a score: null and NaN are none),
      ``score_sum`` and ``score_sumsq`` (Float64, the sum of the scores and of their squares);
    - with ``cost``: the token sums, the rows with unknown tokens, the sum of the known costs
      and the count of unknown ones (``input_tokens``, ``output_tokens``, ``tokens_unknown``,
      ``cost_sum``, ``cost_unknown``; with grader tokens ``grader_cost_sum``,
      ``grader_cost_unknown``).

    So the counts of several partitions, concatenated (``how="diagonal"``, a missing kind column
    counting 0), grouped by the key columns and summed, are the counts of the whole frame, and
    :func:`report_from_counts` gives the same report from them as :func:`report` on the whole.
    Without ``by`` or ``cluster`` the result has one row, also for an empty frame.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    by, correct, failure_kind, prefix, cluster, score, carried_kinds, cost
        As in :func:`report`.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a", "a", "b", "b"],
    ...         "correct": [True, False, False, True],
    ...         "failure_kind": [None, "wrong", "refusal", None],
    ...     }
    ... )
    >>> first, second = df[:3], df[3:]
    >>> counts = pl.concat([gf.report_counts(first, "model"), gf.report_counts(second, "model")])
    >>> summed = counts.group_by("model").agg(pl.all().sum())
    >>> gf.report_from_counts(summed, "model").equals(gf.report(df, "model"))
    True
    >>> gf.report_counts(df, "model").select("model", "n", "n_correct", "refusal", "wrong")
    shape: (2, 5)
    ┌───────┬─────┬───────────┬─────────┬───────┐
    │ model ┆ n   ┆ n_correct ┆ refusal ┆ wrong │
    │ ---   ┆ --- ┆ ---       ┆ ---     ┆ ---   │
    │ str   ┆ i64 ┆ i64       ┆ i64     ┆ i64   │
    ╞═══════╪═════╪═══════════╪═════════╪═══════╡
    │ a     ┆ 2   ┆ 1         ┆ 0       ┆ 1     │
    │ b     ┆ 2   ┆ 1         ┆ 1       ┆ 0     │
    └───────┴─────┴───────────┴─────────┴───────┘
    """
    if is_pandas(frame):  # converted once each way (the rest below is Polars)
        options = {"correct": correct, "failure_kind": failure_kind, "prefix": prefix}
        options |= {"cluster": cluster, "score": score, "carried_kinds": carried_kinds}
        return _on_pandas(report_counts, frame, by, options | {"cost": cost})
    check_frame(frame, "report_counts")
    check_prefix(prefix)
    schema = frame_schema(frame)
    group = by_columns(by, schema)
    keys = list(group)
    if cluster is not None:
        cluster = column_name(cluster, "cluster")
        check_column(schema, cluster, "cluster")
        if cluster in group:
            msg = f"`cluster={cluster!r}` is also a `by` column; a group would be one cluster."
            raise ValueError(msg)
        keys.append(cluster)
    correct_name, _ = default_name(correct, "correct", prefix, "correct")
    right = correct_expr(correct_name, schema)
    aggregations = [
        pl.len().cast(pl.Int64).alias("n"),
        right.sum().cast(pl.Int64).alias("n_correct"),
    ]
    counts: list[str] = []
    if failure_kind is not None:
        kind_name, default = default_name(failure_kind, "failure_kind", prefix, "failure_kind")
        if kind_name in schema or not default:
            kind = kind_expr(kind_name, schema)
            carried = carried_kind_names(frame, kind, carried_kinds)
            # The grader's failures (verdicts), when the frame holds them, right after wrong.
            grader = [k for k in carried if k == kinds.GRADER_FAILURE]
            counts = [*kinds.KINDS, *grader, *(k for k in carried if k not in grader)]
            aggregations += [
                (kind == name).fill_null(value=False).sum().cast(pl.Int64).alias(name)
                for name in counts
            ]
            graded = (kind != kinds.GRADER_FAILURE).fill_null(value=True)
    if score is not None:
        value = score_expr(column_name(score, "score"), schema)
        if kinds.GRADER_FAILURE in counts:  # a grader failure's score is the grader's
            value = pl.when(graded).then(value)
        aggregations += [
            value.is_not_null().sum().cast(pl.Int64).alias("score_n"),
            ordered_sum(value).alias("score_sum"),  # the same bits in every run
            ordered_sum(value * value).alias("score_sumsq"),
        ]
    prices = _cost.check_cost(cost)
    names = [*COUNT_COLUMNS, *SCORE_COUNT_COLUMNS, *STAT_COLUMNS, *CLUSTER_COLUMNS]
    names += list(SCORE_COLUMNS)
    if prices is not None:
        names += [*_cost.COUNT_COLUMNS, *_cost.REPORT_COLUMNS]
    clash = sorted(set(keys) & {*names, *counts})
    if clash:
        msg = (
            f"`by`/`cluster`: the column(s) {clash!r} share a name with report columns; rename "
            "them first."
        )
        raise ValueError(msg)
    clash = sorted(set(counts) & set(names))
    if clash:
        msg = f"`failure_kind`: carried kind(s) {clash!r} share a name with report columns."
        raise ValueError(msg)
    lazy = frame.lazy()
    if prices is not None:
        out = _cost.grouped_counts(frame, keys, aggregations, schema, prices)
        out = out.sort(keys, nulls_last=True) if keys else out
    elif keys:
        out = lazy.group_by(keys).agg(*aggregations).sort(keys, nulls_last=True)
    else:
        out = lazy.select(*aggregations)
    return same_kind(out, frame)


# --------------------------------------------------------------------------------------------
# report_from_counts: the step that needs every count
# --------------------------------------------------------------------------------------------


def _kind_columns(columns: Sequence[str], keys: Sequence[str]) -> list[str]:
    other = set(columns) - set(keys) - {*COUNT_COLUMNS, *SCORE_COUNT_COLUMNS, *_cost.COUNT_COLUMNS}
    grader = [kinds.GRADER_FAILURE] if kinds.GRADER_FAILURE in other else []
    rest = sorted(other - {*kinds.KINDS, *grader})
    return [k for k in kinds.KINDS if k in other] + grader + rest


@one_at_a_time
def report_from_counts(
    counts: Any,
    by: By = None,
    *,
    cluster: str | None = None,
    score: str | bool | None = None,
) -> Any:
    """Build the standard report from counts made by :func:`report_counts` (summed or not).

    ``counts`` may hold several rows per key (the counts of several partitions, concatenated
    diagonally): they are summed first, and a null count (a kind column one partition lacked)
    counts 0. Every interval is computed from the sums, never by averaging partitions'
    intervals. Without ``cluster``: accuracy with its Wilson interval. With ``cluster``: the
    counts must be keyed by it too; the interval is the cluster-robust one, computed from the
    per-cluster totals, and ``n_clusters`` is added. With ``score``: ``mean_score`` and its
    interval, from ``score_n``, ``score_sum`` and ``score_sumsq`` (per cluster, clustered).

    Parameters
    ----------
    counts
        The output of :func:`report_counts` (Polars DataFrame or LazyFrame, or pandas), or the
        concatenation of several.
    by
        The group columns given to :func:`report_counts`.
    cluster
        The cluster column given to :func:`report_counts`, if any.
    score
        Anything but None (the score column's name, as given to :func:`report_counts`) adds the
        score columns.

    Counts made with ``cost=`` (they have a ``cost_unknown`` column) give the cost columns of
    :func:`report` but the latency percentiles, which are not additive.

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The report, as :func:`report` documents it, in the same kind of frame as ``counts``.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> counts = pl.DataFrame({"model": ["a", "b", "a"], "n": [10, 10, 5], "n_correct": [7, 4, 5]})
    >>> gf.report_from_counts(counts, "model").with_columns(pl.selectors.float().round(3))
    shape: (2, 6)
    ┌───────┬─────┬───────────┬──────────┬────────┬─────────┐
    │ model ┆ n   ┆ n_correct ┆ accuracy ┆ ci_low ┆ ci_high │
    │ ---   ┆ --- ┆ ---       ┆ ---      ┆ ---    ┆ ---     │
    │ str   ┆ i64 ┆ i64       ┆ f64      ┆ f64    ┆ f64     │
    ╞═══════╪═════╪═══════════╪══════════╪════════╪═════════╡
    │ a     ┆ 15  ┆ 12        ┆ 0.8      ┆ 0.548  ┆ 0.93    │
    │ b     ┆ 10  ┆ 4         ┆ 0.4      ┆ 0.168  ┆ 0.687   │
    └───────┴─────┴───────────┴──────────┴────────┴─────────┘
    """
    if is_pandas(counts):  # converted once each way (the rest below is Polars)
        columns = dict.fromkeys(str(c) for c in counts.columns)
        options = {"cluster": cluster, "score": score}
        return on_pandas(counts, columns, lambda polars: report_from_counts(polars, by, **options))
    check_frame(counts, "report_from_counts")
    schema = frame_schema(counts)
    group = by_columns(by, schema)
    keys = list(group)
    if cluster is not None:
        keys.append(column_name(cluster, "cluster"))
        check_column(schema, cluster, "cluster")
    needed = [*COUNT_COLUMNS, *(SCORE_COUNT_COLUMNS if score is not None else ())]
    for name in needed:
        if name not in schema:
            msg = (
                f"`counts` has no column {name!r}: it must come from report_counts (with "
                f"score= when score= is given here). Its columns are: {list(schema)!r}."
            )
            raise pl.exceptions.ColumnNotFoundError(msg)
    kind_columns = _kind_columns(list(schema), keys)
    costed = [c for c in _cost.COUNT_COLUMNS if c in schema] if "cost_unknown" in schema else []
    additive = [*needed, *kind_columns, *costed]
    summed = summed_counts(counts.lazy(), keys, additive, costed)

    # Rows the grader failed on (verdicts) are counted in n and left out of the accuracy: its
    # denominator is n_graded.
    graded = kinds.GRADER_FAILURE in kind_columns
    if graded:
        summed = summed.with_columns((pl.col("n") - pl.col(kinds.GRADER_FAILURE)).alias("n_graded"))
        additive.append("n_graded")
    denominator = "n_graded" if graded else "n"
    options = {"clustered": cluster is not None, "scored": score is not None}
    out, stats = statistics(summed, group, additive, denominator, **options)
    counted = [pl.col("n"), *([pl.col("n_graded")] if graded else []), pl.col("n_correct")]
    costs = _cost.report_columns(costed) if costed else []
    out = out.select(*group, *counted, *stats, *kind_columns, *costs)
    if group:
        out = out.sort(group, nulls_last=True)
    if costed:
        out = _cost.with_pareto(out)
        out = out.select(_cost.order(out.collect_schema().names()))
    return same_kind(out, counts)


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


@one_at_a_time
def report(
    frame: Any,
    by: By = None,
    *,
    correct: str = "correct",
    failure_kind: str | None = "failure_kind",
    prefix: str = "",
    cluster: str | None = None,
    score: str | None = None,
    carried_kinds: Sequence[str] | None = None,
    cost: Any = None,
) -> Any:
    r"""Summarise a graded frame: accuracy with its interval, and failures by kind.

    One row per group, sorted by the group columns (nulls last), with the columns

    - the group columns (none without ``by``: one row for the whole frame);
    - ``n`` (Int64): answers in the group; ``n_correct`` (Int64): right ones (a null in
      ``correct`` counts as not right);
    - ``accuracy`` (Float64), ``ci_low``, ``ci_high``: its 95 % interval, Wilson's (see
      :func:`gradeframe.stats.wilson_interval`), or with ``cluster`` the cluster-robust one;
      all three null when ``n`` is 0, which only happens without ``by`` on an empty frame;
    - with ``cluster``: ``n_clusters`` (Int64), the distinct values of the cluster column in
      the group (a null is one value);
    - with ``score``: ``mean_score`` (Float64), ``score_ci_low``, ``score_ci_high``;
    - when the frame has a failure-kind column: one Int64 count per failure kind, the seven of
      :data:`gradeframe.KINDS` always, in table order, then the carried kinds (any other
      non-null ``failure_kind``), sorted. A matcher's output has none: then there are no kind
      columns;
    - with ``cost``, last: ``input_tokens``, ``output_tokens`` (sums of the known counts),
      ``cost`` (dollars, every row charged; null when any row's usage is unknown),
      ``cost_per_correct``, ``correct_per_1k_tokens``, ``seconds_p50``/``seconds_p95`` (with
      ``seconds``; numpy's linear percentiles), ``pareto`` (no other group both more accurate
      and cheaper), ``cost_unknown`` and, with a grader's tokens, ``grader_cost`` (docs/reports.md).

    Intervals: Wilson's for the accuracy (Wilson 1927). With ``cluster`` (rows of one cluster
    are not independent: several epochs of one question, or several questions about one
    document), accuracy :math:`\pm` 1.959964 times the cluster-robust standard error of the
    mean without small-sample correction (CR0; Miller 2024, "Adding Error Bars to Evals"; see
    :func:`gradeframe.stats.clustered_standard_error`), null with fewer than two clusters. The
    score's interval is the normal one, mean :math:`\pm` 1.959964 sd/:math:`\sqrt n` (sd with
    ddof = 1; :func:`gradeframe.stats.mean_interval`), or clustered the same way. Every interval
    of a proportion is clipped to [0, 1]; a score's interval is not (a score need not lie in
    [0, 1]).

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    by
        None, a column name, or a list of column names to group by.
    correct
        The Boolean column that says an answer is right.
    failure_kind
        The String column that names the failure kind (null when right). The default name is
        optional: a frame without it gets no kind columns. A name given explicitly must exist.
        None: no kind columns.
    prefix
        Read the graded columns under this prefix (as ``answer_contains(prefix=...)`` wrote
        them): applies to the default names only (``prefix + "correct"``,
        ``prefix + "failure_kind"``); names given explicitly are used as given. A name equal to
        the default counts as the default.
    cluster
        A column whose equal values form one cluster (``"question_id"`` with several epochs):
        ``ci_low``/``ci_high`` become the cluster-robust interval and ``n_clusters`` is added.
    score
        A numeric column (say ``"f1"``): adds its mean and interval. A null or NaN score is
        left out of them.
    carried_kinds
        The carried kinds to give columns, when you know them. By default they are found in the
        data; on a LazyFrame that collects the distinct values of ``failure_kind`` (the rest of
        the report stays lazy). When given, other carried kinds are not counted in any column.
    cost
        Prices ``{model: {"input": $, "output": $, "cache_read": $, "reasoning": $}}`` in
        dollars per million tokens (a frame with ``model`` and those columns works too), or the
        name of a per-row cost column in dollars. A missing key is 0; a missing ``reasoning``
        price is the output price (reasoning tokens are output tokens). gradeframe ships none.

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input (a LazyFrame gives a LazyFrame).

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "model": ["a", "a", "a", "b", "b"],
    ...         "correct": [True, False, False, False, False],
    ...         "failure_kind": [None, "wrong", "timeout", "refusal", None],
    ...     }
    ... )
    >>> out = gf.report(df, "model")
    >>> out.select("model", "n", "n_correct", "accuracy", "ci_low", "ci_high").with_columns(
    ...     pl.selectors.float().round(3)
    ... )
    shape: (2, 6)
    ┌───────┬─────┬───────────┬──────────┬────────┬─────────┐
    │ model ┆ n   ┆ n_correct ┆ accuracy ┆ ci_low ┆ ci_high │
    │ ---   ┆ --- ┆ ---       ┆ ---      ┆ ---    ┆ ---     │
    │ str   ┆ i64 ┆ i64       ┆ f64      ┆ f64    ┆ f64     │
    ╞═══════╪═════╪═══════════╪══════════╪════════╪═════════╡
    │ a     ┆ 3   ┆ 1         ┆ 0.333    ┆ 0.061  ┆ 0.792   │
    │ b     ┆ 2   ┆ 0         ┆ 0.0      ┆ 0.0    ┆ 0.658   │
    └───────┴─────┴───────────┴──────────┴────────┴─────────┘
    >>> out.columns[6:]
    ['no_reference', 'error', 'parse_failure', 'budget_stop', 'refusal', 'not_in_document',
     'wrong', 'timeout']

    Several epochs of the same questions: the clustered interval is wider than the one that
    takes every row as independent.

    >>> epochs = pl.DataFrame(
    ...     {
    ...         "question_id": ["q1", "q2", "q3", "q4"] * 3,
    ...         "correct": [True, True, False, False] * 2 + [True, False, False, False],
    ...     }
    ... )
    >>> gf.report(epochs, cluster="question_id").with_columns(pl.selectors.float().round(3))
    shape: (1, 6)
    ┌─────┬───────────┬──────────┬────────┬─────────┬────────────┐
    │ n   ┆ n_correct ┆ accuracy ┆ ci_low ┆ ci_high ┆ n_clusters │
    │ --- ┆ ---       ┆ ---      ┆ ---    ┆ ---     ┆ ---        │
    │ i64 ┆ i64       ┆ f64      ┆ f64    ┆ f64     ┆ i64        │
    ╞═════╪═══════════╪══════════╪════════╪═════════╪════════════╡
    │ 12  ┆ 5         ┆ 0.417    ┆ 0.0    ┆ 0.841   ┆ 4          │
    └─────┴───────────┴──────────┴────────┴─────────┴────────────┘

    What each model's right answers cost (prices in dollars per million tokens; the unknown
    model ``c`` makes its cost null, never 0):

    >>> runs = pl.DataFrame(
    ...     {
    ...         "model": ["a", "a", "b", "b", "c"],
    ...         "correct": [True, False, True, True, True],
    ...         "input_tokens": [1000, 1200, 800, 900, 500],
    ...         "output_tokens": [200, 300, 900, 1100, 100],
    ...     }
    ... )
    >>> prices = {"a": {"input": 3.0, "output": 15.0}, "b": {"input": 0.5, "output": 1.5}}
    >>> gf.report(runs, "model", cost=prices).select(
    ...     "model", "accuracy", "cost", "cost_per_correct", "pareto", "cost_unknown"
    ... )
    shape: (3, 6)
    ┌───────┬──────────┬─────────┬──────────────────┬────────┬──────────────┐
    │ model ┆ accuracy ┆ cost    ┆ cost_per_correct ┆ pareto ┆ cost_unknown │
    │ ---   ┆ ---      ┆ ---     ┆ ---              ┆ ---    ┆ ---          │
    │ str   ┆ f64      ┆ f64     ┆ f64              ┆ bool   ┆ i64          │
    ╞═══════╪══════════╪═════════╪══════════════════╪════════╪══════════════╡
    │ a     ┆ 0.5      ┆ 0.0141  ┆ 0.0141           ┆ false  ┆ 0            │
    │ b     ┆ 1.0      ┆ 0.00385 ┆ 0.001925         ┆ true   ┆ 0            │
    │ c     ┆ 1.0      ┆ null    ┆ null             ┆ null   ┆ 1            │
    └───────┴──────────┴─────────┴──────────────────┴────────┴──────────────┘
    """
    if is_pandas(frame):  # converted once each way (the rest below is Polars)
        options = {"correct": correct, "failure_kind": failure_kind, "prefix": prefix}
        options |= {"cluster": cluster, "score": score, "carried_kinds": carried_kinds}
        return _on_pandas(report, frame, by, options | {"cost": cost})
    counts = report_counts(
        frame,
        by,
        correct=correct,
        failure_kind=failure_kind,
        prefix=prefix,
        cluster=cluster,
        score=score,
        carried_kinds=carried_kinds,
        cost=cost,
    )
    out = report_from_counts(counts, by, cluster=cluster, score=score)
    if cost is None or _cost.SECONDS not in (schema := frame_schema(frame)):
        return out
    # The latency percentiles are not additive: computed from the rows, joined on the groups.
    return same_kind(_cost.with_percentiles(out, frame, by_columns(by, schema), schema), frame)


def _on_pandas(summary: Any, frame: Any, by: By, options: dict[str, Any]) -> Any:
    """Run report or report_counts on a pandas frame, converted once each way (cost columns too)."""
    check_prefix(options["prefix"])
    names = ("correct", "failure_kind", "prefix", "cluster", "score")
    columns = pandas_report_columns(frame, by, *(options[name] for name in names))
    prices = _cost.check_cost(options["cost"])
    if prices is not None:
        present = [str(c) for c in frame.columns]
        columns = columns | dict.fromkeys(_cost.input_columns(present, prices))
    options = options | {"cost": prices}
    return on_pandas(frame, columns, lambda polars: summary(polars, by, **options))


def __getattr__(name: str) -> Any:
    """``from gradeframe.report import failures``: it lived here before failures.py."""
    if name == "failures":
        from gradeframe.failures import failures

        return failures
    msg = f"module {__name__!r} has no attribute {name!r}"
    raise AttributeError(msg)
