"""Reports on graded frames: accuracy with its interval, failure counts, failure listings.

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

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, TypeAlias

import polars as pl

from gradeframe import kinds
from gradeframe._inputs import (
    Schema,
    as_text,
    check_column,
    check_output_names,
    check_prefix,
    dtype_error,
    frame_schema,
    is_text,
    struct_fields,
)
from gradeframe.stats import (
    Z_95,
    clustered_standard_error,
    mean_interval,
    normal_interval,
    wilson_interval,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "WILSON_Z",
    "failures",
    "report",
    "report_counts",
    "report_from_counts",
    "wilson_interval",
]

Frame: TypeAlias = pl.DataFrame | pl.LazyFrame
By: TypeAlias = str | Sequence[str] | None

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

#: What :func:`failures` puts between acceptable answers when it shows a list of them.
REFS_SEPARATOR: Final = " | "

#: What marks a shown value that was cut to MAX_METADATA_LENGTH characters.
CUT_MARK: Final = "…"


def max_metadata_length() -> int:
    """Return :data:`gradeframe.MAX_METADATA_LENGTH` as it is now (setting it takes effect)."""
    package = sys.modules.get("gradeframe")
    length = getattr(package, "MAX_METADATA_LENGTH", None)
    if length is None:  # pragma: no cover - only while the package itself is importing
        from gradeframe._limits import MAX_METADATA_LENGTH as length
    if not isinstance(length, int) or isinstance(length, bool) or length < len(CUT_MARK):
        msg = f"gradeframe.MAX_METADATA_LENGTH must be a positive int, got {length!r}"
        raise ValueError(msg)
    return length


# --------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------


def _group_columns(by: By, schema: Schema, argument: str = "by") -> list[str]:
    if by is None:
        return []
    names = [by] if isinstance(by, str) else by
    if not isinstance(names, Sequence) or not all(isinstance(b, str) for b in names):
        msg = f"`{argument}` must be None, a column name or a list of column names, got {by!r}"
        raise TypeError(msg)
    names = list(names)
    if len(set(names)) != len(names):
        msg = f"`{argument}` names a column more than once: {names!r}"
        raise ValueError(msg)
    for name in names:
        check_column(schema, name, argument)
    return names


def _column_name(value: Any, argument: str) -> str:
    if not isinstance(value, str):
        kind = type(value).__name__
        msg = f"`{argument}` must be a column name (str), got {kind}: {value!r}"
        raise TypeError(msg)
    return value


def _default_name(value: Any, default: str, prefix: str, argument: str) -> tuple[str, bool]:
    """Return the column an argument names, and whether it is the (prefixed) default."""
    name = _column_name(value, argument)
    if name == default:
        return prefix + default, True
    return name, False


#: What to do when a summary finds no verdict column (SPEC §2 "Defaults that follow the data").
GRADE_FIRST: Final = (
    "Grade the frame first: df.grade.answer_contains('answer', 'refs') (or a matcher such as "
    "df.grade.exact_match(...)) adds the Boolean `correct` column; or name your own Boolean "
    "verdict column with correct=..."
)


def _correct_expr(correct: str, schema: Schema, argument: str = "correct") -> pl.Expr:
    check_column(schema, correct, argument, GRADE_FIRST)
    dtype = schema[correct]
    if dtype not in (pl.Boolean, pl.Null):
        raise dtype_error(argument, correct, dtype, "Boolean (as answer_contains adds it)")
    # A null is not right: it is counted in n and not in n_correct.
    return pl.col(correct).cast(pl.Boolean).fill_null(value=False)


def _kind_expr(failure_kind: str, schema: Schema) -> pl.Expr:
    check_column(schema, failure_kind, "failure_kind")
    dtype = schema[failure_kind]
    if dtype == pl.Null:
        return pl.lit(None, dtype=pl.String)
    if not is_text(dtype):
        raise dtype_error("failure_kind", failure_kind, dtype, "String")
    return as_text(pl.col(failure_kind), dtype)


def _score_expr(score: str, schema: Schema) -> pl.Expr:
    check_column(schema, score, "score")
    dtype = schema[score]
    if not (dtype.is_numeric() or dtype in (pl.Boolean, pl.Null)):
        raise dtype_error("score", score, dtype, "numeric (a score per row, such as f1)")
    # NaN is no score, like null: it is left out of the mean and its count.
    return pl.col(score).cast(pl.Float64).fill_nan(None)


def _carried_kinds(frame: Frame, kind: pl.Expr, carried_kinds: Sequence[str] | None) -> list[str]:
    if carried_kinds is not None:
        if isinstance(carried_kinds, str) or not all(isinstance(k, str) for k in carried_kinds):
            msg = f"`carried_kinds` must be a list of failure kinds (str), got {carried_kinds!r}"
            raise TypeError(msg)
        return sorted(set(carried_kinds) - set(kinds.KINDS))
    distinct = frame.lazy().select(kind.drop_nulls().unique().alias("kind")).collect()
    return sorted(set(distinct.get_column("kind").to_list()) - set(kinds.KINDS))


def _same_kind(result: pl.LazyFrame, frame: Frame) -> Frame:
    return result if isinstance(frame, pl.LazyFrame) else result.collect()


# --------------------------------------------------------------------------------------------
# report_counts: the additive step
# --------------------------------------------------------------------------------------------


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
) -> Any:
    """Count what a report needs, in columns that add up across partitions.

    One row per group of ``by`` (and per ``cluster`` value within it, when given), sorted by
    those key columns (nulls last); every other column is a sum:

    - ``n`` (Int64): rows; ``n_correct`` (Int64): right ones (a null ``correct`` is not right);
    - one Int64 count per failure kind, when the frame has a failure-kind column: the seven of
      :data:`gradeframe.KINDS` always, in table order, then the carried kinds, sorted;
    - with ``score``: ``score_n`` (Int64, rows with a score: null and NaN are none),
      ``score_sum`` and ``score_sumsq`` (Float64, the sum of the scores and of their squares).

    So the counts of several partitions, concatenated (``how="diagonal"``, a missing kind column
    counting 0), grouped by the key columns and summed, are the counts of the whole frame, and
    :func:`report_from_counts` gives the same report from them as :func:`report` on the whole.
    Without ``by`` or ``cluster`` the result has one row, also for an empty frame.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    by, correct, failure_kind, prefix, cluster, score, carried_kinds
        As in :func:`report`.

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input.

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
    if _is_pandas(frame):
        from gradeframe import _frames

        check_prefix(prefix)
        columns = _pandas_columns(frame, by, correct, failure_kind, prefix, cluster, score)
        result = report_counts(
            _frames.to_polars(frame, columns),
            by,
            correct=correct,
            failure_kind=failure_kind,
            prefix=prefix,
            cluster=cluster,
            score=score,
            carried_kinds=carried_kinds,
        )
        return _frames.to_pandas_frame(result)
    _check_frame(frame, "report_counts")
    check_prefix(prefix)
    schema = frame_schema(frame)
    group = _group_columns(by, schema)
    keys = list(group)
    if cluster is not None:
        cluster = _column_name(cluster, "cluster")
        check_column(schema, cluster, "cluster")
        if cluster in group:
            msg = f"`cluster={cluster!r}` is also a `by` column; a group would be one cluster."
            raise ValueError(msg)
        keys.append(cluster)
    correct_name, _ = _default_name(correct, "correct", prefix, "correct")
    right = _correct_expr(correct_name, schema)
    aggregations = [
        pl.len().cast(pl.Int64).alias("n"),
        right.sum().cast(pl.Int64).alias("n_correct"),
    ]
    counts: list[str] = []
    if failure_kind is not None:
        kind_name, default = _default_name(failure_kind, "failure_kind", prefix, "failure_kind")
        if kind_name in schema or not default:
            kind = _kind_expr(kind_name, schema)
            carried = _carried_kinds(frame, kind, carried_kinds)
            counts = [*kinds.KINDS, *carried]
            aggregations += [
                (kind == name).fill_null(value=False).sum().cast(pl.Int64).alias(name)
                for name in counts
            ]
    if score is not None:
        value = _score_expr(_column_name(score, "score"), schema)
        aggregations += [
            value.is_not_null().sum().cast(pl.Int64).alias("score_n"),
            value.sum().alias("score_sum"),
            (value * value).sum().alias("score_sumsq"),
        ]
    names = [*COUNT_COLUMNS, *SCORE_COUNT_COLUMNS, *STAT_COLUMNS, *CLUSTER_COLUMNS]
    names += list(SCORE_COLUMNS)
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
    if keys:
        out = lazy.group_by(keys).agg(*aggregations).sort(keys, nulls_last=True)
    else:
        out = lazy.select(*aggregations)
    return _same_kind(out, frame)


# --------------------------------------------------------------------------------------------
# report_from_counts: the step that needs every count
# --------------------------------------------------------------------------------------------


def _kind_columns(columns: Sequence[str], keys: Sequence[str]) -> list[str]:
    other = set(columns) - set(keys) - {*COUNT_COLUMNS, *SCORE_COUNT_COLUMNS}
    return [k for k in kinds.KINDS if k in other] + sorted(other - set(kinds.KINDS))


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
    if _is_pandas(counts):
        from gradeframe import _frames

        polars_counts = _frames.to_polars(counts, dict.fromkeys(str(c) for c in counts.columns))
        result = report_from_counts(polars_counts, by, cluster=cluster, score=score)
        return _frames.to_pandas_frame(result)
    _check_frame(counts, "report_from_counts")
    schema = frame_schema(counts)
    group = _group_columns(by, schema)
    keys = list(group)
    if cluster is not None:
        keys.append(_column_name(cluster, "cluster"))
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
    additive = [*needed, *kind_columns]
    sums = [pl.col(c).fill_null(0).sum().alias(c) for c in additive]
    lazy = counts.lazy()
    if keys:
        # Sorted, so that the sums over clusters below add in one order whatever the order of
        # the counts: the same report to the last bit from one frame or from many partitions.
        summed = lazy.group_by(keys).agg(*sums).sort(keys, nulls_last=True)
    else:
        summed = lazy.select(*sums)
    integer = [c for c in additive if c not in ("score_sum", "score_sumsq")]
    summed = summed.with_columns(pl.col(integer).cast(pl.Int64))

    accuracy = pl.when(pl.col("n") > 0).then(pl.col("n_correct") / pl.col("n")).alias("accuracy")
    extra: list[str] = []
    if cluster is None:
        out = summed
        low, high = wilson_interval("n_correct", "n")
        if score is not None:
            mean, score_low, score_high = mean_interval("score_sum", "score_sumsq", "score_n")
            score_exprs = [
                mean.alias("mean_score"),
                score_low.alias("score_ci_low"),
                score_high.alias("score_ci_high"),
            ]
    else:
        aggregations = [pl.col(c).sum() for c in additive]
        aggregations += [
            pl.len().cast(pl.Int64).alias("n_clusters"),
            clustered_standard_error("n_correct", "n", integer=True).alias("__se"),
        ]
        if score is not None:
            aggregations.append(
                clustered_standard_error("score_sum", "score_n").alias("__score_se")
            )
        out = summed.group_by(group).agg(*aggregations) if group else summed.select(*aggregations)
        low, high = normal_interval(accuracy, "__se", clip=(0.0, 1.0))
        extra = ["n_clusters"]
        if score is not None:
            mean = pl.when(pl.col("score_n") > 0).then(pl.col("score_sum") / pl.col("score_n"))
            score_low, score_high = normal_interval(mean, "__score_se")
            score_exprs = [
                mean.alias("mean_score"),
                score_low.alias("score_ci_low"),
                score_high.alias("score_ci_high"),
            ]
    if score is None:
        score_exprs = []
    stats = [pl.col("n"), pl.col("n_correct"), accuracy, low, high, *extra, *score_exprs]
    out = out.select(*group, *stats, *kind_columns)
    if group:
        out = out.sort(group, nulls_last=True)
    return _same_kind(out, counts)


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


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
      columns.

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
    """
    counts = report_counts(
        frame,
        by,
        correct=correct,
        failure_kind=failure_kind,
        prefix=prefix,
        cluster=cluster,
        score=score,
        carried_kinds=carried_kinds,
    )
    return report_from_counts(counts, by, cluster=cluster, score=score)


# --------------------------------------------------------------------------------------------
# failures
# --------------------------------------------------------------------------------------------


def _cut(text: pl.Expr, length: int) -> pl.Expr:
    """Cut text to ``length`` characters, the last being the cut mark when anything was cut."""
    return (
        pl.when(text.str.len_chars() > length)
        .then(text.str.slice(0, length - len(CUT_MARK)) + CUT_MARK)
        .otherwise(text)
    )


def _scalar_text(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    if is_text(dtype):
        return as_text(expr, dtype)
    if isinstance(dtype, pl.Struct | pl.List | pl.Array | pl.Object | pl.Binary):
        return pl.lit(None, dtype=pl.String)
    return expr.cast(pl.String)


def _shown(expr: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Text that shows a value: answer text from an output record, lists joined."""
    fields = struct_fields(dtype)
    if fields:
        parts = [
            _scalar_text(expr.struct.field(name), fields[name])
            for name in ("answer", "text")
            if name in fields and not isinstance(fields[name], pl.Struct | pl.List)
        ]
        record = expr.struct.json_encode()
        return pl.coalesce(*parts, record) if parts else record
    if isinstance(dtype, pl.List | pl.Array):
        listed = expr.arr.to_list() if isinstance(dtype, pl.Array) else expr
        inner = dtype.inner
        if isinstance(inner, pl.Struct | pl.List | pl.Array):
            return listed.cast(pl.String, strict=False)
        return listed.list.eval(_scalar_text(pl.element(), inner)).list.join(REFS_SEPARATOR)
    return _scalar_text(expr, dtype)


def _compared_columns(
    actual: str | bool | None, expected: str | bool | None, schema: Schema, prefix: str
) -> list[tuple[str, str]]:
    """Return (argument, column) for the columns to show; defaults only on answer_contains."""
    graded_by_answer_contains = prefix + "outcome" in schema
    defaults = {"actual": "answer", "expected": "refs"}
    shown = []
    for argument, value in (("actual", actual), ("expected", expected)):
        if value is False:
            continue
        if value is None:
            if not graded_by_answer_contains:
                msg = (
                    f"`{argument}` is needed: this frame has no {prefix + 'outcome'!r} column, "
                    "so it was not graded by answer_contains and gradeframe cannot know which "
                    "columns were compared. Name them: failures(actual=..., expected=...) "
                    f"(or {argument}=False to leave it out)."
                )
                raise ValueError(msg)
            value = defaults[argument]
            advice = (
                f"failures() shows the answer and the acceptable answers that were graded; its "
                f"defaults are actual='answer' and expected='refs'. Name the columns this frame "
                f"was graded on: failures(actual=..., expected=...) (or {argument}=False to leave "
                "it out)."
            )
        else:
            advice = ""
        if not isinstance(value, str):
            kind = type(value).__name__
            msg = f"`{argument}` must be a column name (str), None or False, got {kind}: {value!r}"
            raise TypeError(msg)
        check_column(schema, value, argument, advice)
        shown.append((argument, value))
    return shown


def failures(
    frame: Any,
    *,
    actual: str | bool | None = None,
    expected: str | bool | None = None,
    prefix: str = "",
    correct: str = "correct",
    failure_kind: str = "failure_kind",
    kind: str | Sequence[str] | None = None,
) -> Any:
    """Return the rows that are not right, with the compared values shown short.

    Rows keep their order and every column (so their ``failure_kind``, or a matcher's
    ``expectation``); a null in ``correct`` counts as not right. Two String columns are added,
    each cut to :data:`gradeframe.MAX_METADATA_LENGTH` characters as it is when called (a cut
    value ends with "…"):

    - ``prefix + "actual"``: the answer's text (from an output record: its ``answer`` field,
      else ``text``, else the record as JSON); numbers and booleans as text;
    - ``prefix + "expected"``: the expected value; a list of acceptable answers joined with
      " | ".

    A shown column that already has the output's name (``actual="actual"``) is replaced by its
    shown text; any other clash raises.

    Parameters
    ----------
    frame
        A graded Polars DataFrame or LazyFrame, or a pandas DataFrame.
    actual, expected
        The columns that were compared. The defaults (``"answer"``, ``"refs"``) apply only to
        the output of answer_contains (it has an ``outcome`` column); on a matcher's output they
        must be given, so that a column that was not compared is never shown as the expected
        value. ``False``: leave that column out.
    prefix
        The prefix the frame was graded with: applies to the default names (``correct``,
        ``failure_kind``, ``outcome``) and to the two added columns.
    correct
        The Boolean column that says an answer is right.
    failure_kind
        The String column of failure kinds; needed only with ``kind``.
    kind
        Keep only failures of this kind (or these kinds).

    Returns
    -------
    pl.DataFrame | pl.LazyFrame | pandas.DataFrame
        The same kind of frame as the input; a pandas result keeps the input's index labels.

    Examples
    --------
    >>> import polars as pl
    >>> import gradeframe as gf
    >>> df = pl.DataFrame(
    ...     {
    ...         "answer": ["It made 12,400 units.", "About 145.2 m", "x" * 600, None],
    ...         "refs": [["12400"], ["45.2", "45.2 m"], ["7"], ["7"]],
    ...     }
    ... ).grade.answer_contains()
    >>> out = gf.failures(df)
    >>> out.select("failure_kind", "expected", pl.col("actual").str.len_chars().alias("len"))
    shape: (3, 3)
    ┌───────────────┬───────────────┬──────┐
    │ failure_kind  ┆ expected      ┆ len  │
    │ ---           ┆ ---           ┆ ---  │
    │ str           ┆ str           ┆ u32  │
    ╞═══════════════╪═══════════════╪══════╡
    │ wrong         ┆ 45.2 | 45.2 m ┆ 13   │
    │ wrong         ┆ 7             ┆ 500  │
    │ parse_failure ┆ 7             ┆ null │
    └───────────────┴───────────────┴──────┘

    On a matcher's output, name the compared columns:

    >>> m = pl.DataFrame({"pred": ["B", "c"], "gold": ["B", "A"]}).grade.exact_match("pred", "gold")
    >>> gf.failures(m, actual="pred", expected="gold").select("expectation", "actual", "expected")
    shape: (1, 3)
    ┌─────────────┬────────┬──────────┐
    │ expectation ┆ actual ┆ expected │
    │ ---         ┆ ---    ┆ ---      │
    │ str         ┆ str    ┆ str      │
    ╞═════════════╪════════╪══════════╡
    │ exact match ┆ c      ┆ A        │
    └─────────────┴────────┴──────────┘
    """
    if _is_pandas(frame):
        return _failures_pandas(
            frame,
            actual=actual,
            expected=expected,
            prefix=prefix,
            correct=correct,
            failure_kind=failure_kind,
            kind=kind,
        )
    _check_frame(frame, "failures")
    check_prefix(prefix)
    schema = frame_schema(frame)
    correct_name, _ = _default_name(correct, "correct", prefix, "correct")
    condition = ~_correct_expr(correct_name, schema)
    if kind is not None:
        wanted = [kind] if isinstance(kind, str) else list(kind)
        if not wanted or not all(isinstance(k, str) for k in wanted):
            msg = f"`kind` must be a failure kind or a non-empty list of them, got {kind!r}"
            raise TypeError(msg)
        if failure_kind is None:
            msg = "`kind` needs the `failure_kind` column; `failure_kind` is None."
            raise ValueError(msg)
        kind_name, _ = _default_name(failure_kind, "failure_kind", prefix, "failure_kind")
        condition = condition & _kind_expr(kind_name, schema).is_in(wanted).fill_null(value=False)
    length = max_metadata_length()
    compared = _compared_columns(actual, expected, schema, prefix)
    added = [
        _cut(_shown(pl.col(name), schema[name]), length).alias(prefix + argument)
        for argument, name in compared
    ]
    # A compared column that already has the output's name is replaced by its shown text.
    replaced = {name for argument, name in compared if name == prefix + argument}
    check_output_names(
        {k: v for k, v in schema.items() if k not in replaced},
        [e.meta.output_name() for e in added],
    )
    return frame.filter(condition).with_columns(*added)


def _failures_pandas(frame: pd.DataFrame, **kwargs: Any) -> pd.DataFrame:
    from gradeframe import _frames

    prefix = kwargs["prefix"]
    check_prefix(prefix)
    present = {str(c): pl.Null() for c in frame.columns}
    correct_name, _ = _default_name(kwargs["correct"], "correct", prefix, "correct")
    check_column(present, correct_name, "correct", GRADE_FIRST)
    arguments = [("correct", correct_name, None)]
    shown = _compared_columns(kwargs["actual"], kwargs["expected"], present, prefix)
    arguments += [
        (argument, name, "text" if argument == "actual" else "refs") for argument, name in shown
    ]
    if prefix + "outcome" in present:
        arguments.append(("outcome", prefix + "outcome", None))
    if kwargs["kind"] is not None and kwargs["failure_kind"] is not None:
        kind_name, _ = _default_name(kwargs["failure_kind"], "failure_kind", prefix, "failure_kind")
        arguments.append(("failure_kind", kind_name, None))
    columns = _frames.needed_columns(frame, arguments)
    position = "__gradeframe_position__"
    if position in present:  # pragma: no cover - a clash nobody makes
        msg = f"the frame has a column named {position!r}; rename it first."
        raise ValueError(msg)
    polars_frame = _frames.to_polars(frame, columns).with_row_index(position)
    result = failures(polars_frame, **kwargs)
    out = frame.iloc[result.get_column(position).to_numpy()].copy()
    for argument, _ in shown:
        name = prefix + argument
        out[name] = _frames.to_pandas_column(result.get_column(name))
    return out


# --------------------------------------------------------------------------------------------
# Frame types
# --------------------------------------------------------------------------------------------


def _is_pandas(frame: Any) -> bool:
    module = type(frame).__module__
    if not module.startswith("pandas"):
        return False
    import pandas as pd

    return isinstance(frame, pd.DataFrame)


def _check_frame(frame: Any, function: str) -> None:
    if not isinstance(frame, pl.DataFrame | pl.LazyFrame):
        msg = (
            f"`{function}` takes a Polars DataFrame or LazyFrame or a pandas DataFrame, "
            f"got {type(frame).__name__}"
        )
        raise TypeError(msg)


def _pandas_by(by: By) -> list[str]:
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def _pandas_columns(
    frame: Any,
    by: By,
    correct: str,
    failure_kind: str | None,
    prefix: str,
    cluster: str | None = None,
    score: str | None = None,
) -> dict[str, None]:
    """Return the columns a report needs from a pandas frame, a missing one named by argument."""
    from gradeframe import _frames

    present = dict.fromkeys(str(c) for c in frame.columns)
    arguments: list[tuple[str, Any, None]] = [("by", name, None) for name in _pandas_by(by)]
    _frames.needed_columns(frame, arguments)  # a wrong `by` is named first, as on Polars
    correct_name, _ = _default_name(correct, "correct", prefix, "correct")
    check_column(dict.fromkeys(present), correct_name, "correct", GRADE_FIRST)  # type: ignore[arg-type]
    arguments.append(("correct", correct_name, None))
    if failure_kind is not None:
        kind_name, default = _default_name(failure_kind, "failure_kind", prefix, "failure_kind")
        if kind_name in present or not default:
            arguments.append(("failure_kind", kind_name, None))
    if cluster is not None:
        arguments.append(("cluster", cluster, None))
    if score is not None:
        arguments.append(("score", score, None))
    return _frames.needed_columns(frame, arguments)  # type: ignore[return-value]
