"""The steps of :func:`gradeframe.report_from_counts`: the counts summed, then the statistics.

:func:`summed_counts` adds up the counts of every partition per key; :func:`statistics` turns
the sums into the accuracy, its interval (Wilson, or the cluster-robust one from the
per-cluster totals) and the score's mean and interval. Every interval comes from the sums,
never from averaging partitions' intervals.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from gradeframe import _cost
from gradeframe.stats import (
    clustered_standard_error,
    mean_interval,
    normal_interval,
    ordered_sum,
    wilson_interval,
)

#: The score's sums among the counts: floats, added in one fixed order (the rest are whole).
_SCORE_SUMS = ("score_sum", "score_sumsq")


def summed_counts(
    lazy: pl.LazyFrame, keys: Sequence[str], additive: Sequence[str], costed: Sequence[str]
) -> pl.LazyFrame:
    """Sum the ``additive`` counts per key (a null counts 0), whole counts as Int64."""
    sums = [_sum(c) for c in additive]
    if keys:
        # Sorted, so that the sums over clusters below add in one order whatever the order of
        # the counts: the same report to the last bit from one frame or from many partitions.
        summed = lazy.group_by(keys).agg(*sums).sort(keys, nulls_last=True)
    else:
        summed = lazy.select(*sums)
    integer = [c for c in additive if c not in (*_SCORE_SUMS, *_cost.COUNT_COLUMNS)]
    integer += _cost.integer_counts(costed)
    return summed.with_columns(pl.col(integer).cast(pl.Int64))


def statistics(
    summed: pl.LazyFrame,
    group: Sequence[str],
    additive: Sequence[str],
    denominator: str,
    *,
    clustered: bool,
    scored: bool,
) -> tuple[pl.LazyFrame, list[pl.Expr | str]]:
    """Return the frame to select the report from, and its statistics columns in order.

    The columns: ``accuracy``, ``ci_low``, ``ci_high``, then ``n_clusters`` when clustered
    (the frame is then one row per group, summed over the clusters), then the score's columns
    when scored. ``denominator`` is the count the accuracy divides by (``n``, or ``n_graded``).
    """
    accuracy = (
        pl.when(pl.col(denominator) > 0)
        .then(pl.col("n_correct") / pl.col(denominator))
        .alias("accuracy")
    )
    if not clustered:
        low, high = wilson_interval("n_correct", denominator)
        mean = mean_interval("score_sum", "score_sumsq", "score_n") if scored else None
        return summed, [accuracy, low, high, *(_score_columns(*mean) if mean else [])]
    aggregations = [_sum(c) for c in additive]
    # A cluster whose rows the grader all failed on is no cluster of graded rows.
    aggregations += [
        (pl.col(denominator) > 0).sum().cast(pl.Int64).alias("n_clusters"),
        clustered_standard_error("n_correct", denominator, integer=True).alias("__se"),
    ]
    if scored:
        aggregations.append(clustered_standard_error("score_sum", "score_n").alias("__score_se"))
    # (it adds nothing to the standard error either: its total and count are 0).
    out = summed.group_by(group).agg(*aggregations) if group else summed.select(*aggregations)
    low, high = normal_interval(accuracy, "__se", clip=(0.0, 1.0))
    score = []
    if scored:
        mean = pl.when(pl.col("score_n") > 0).then(pl.col("score_sum") / pl.col("score_n"))
        score = _score_columns(mean, *normal_interval(mean, "__score_se"))
    return out, [accuracy, low, high, "n_clusters", *score]


def _sum(column: str) -> pl.Expr:
    """Sum a count column (a null counts 0); the scores in one fixed order (the same bits)."""
    if column in _SCORE_SUMS:
        return ordered_sum(column).alias(column)
    return pl.col(column).fill_null(0).sum().alias(column)


def _score_columns(mean: pl.Expr, low: pl.Expr, high: pl.Expr) -> list[pl.Expr]:
    return [mean.alias("mean_score"), low.alias("score_ci_low"), high.alias("score_ci_high")]
