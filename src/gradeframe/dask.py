"""gradeframe on Dask: ``ddf.grade`` on ``dask.dataframe.DataFrame`` (and ``Series``).

``import gradeframe.dask`` registers the accessor (``import gradeframe`` does it for you when
``dask.dataframe`` is already imported). Nothing here scores anything: every partition is a pandas
frame, and each partition runs the pandas accessor (``partition.grade.<method>(...)``), which runs
the same Polars expressions as everywhere else.

- Grading methods (``answer_contains`` and the matchers) return a lazy Dask frame. Its ``meta``
  is the pandas accessor's result on the empty frame ``ddf._meta``; that call also checks the
  arguments and columns, so a mistake raises before any data is read.
- ``report`` sums each partition's counts and builds the report once from the sums (the interval
  of a sum, never an average of the partitions' intervals). It computes, and returns pandas.
- ``pass_at_k``, ``consistency`` and ``flaky`` count each partition's samples per group and item
  (and votes per folded answer), sum the counts over the partitions (an item's rows may sit in
  several partitions), and compute the statistics once from the sums, as on one frame. They
  compute, and return pandas.
- Columns holding lists or records arrive intact. With ``dataframe.convert-string`` on (Dask's
  default), ``dd.from_pandas`` and friends would turn an object column of lists or dicts into
  their printed text ("['1987']"); the grading methods keep the columns they read as they were
  in the source instead (see :func:`keep_objects`, which rewrites Dask's conversion steps in the
  frame's expression: Dask 2025.1 or later). Whether a column holds text is told by its dtype
  and source (the pandas data or the ``meta`` before the conversion), never by how its values
  look: a text column that reads like a JSON list (``'["Paris"]'``) is text, graded as pandas and
  Polars grade it (issue 23 item 7).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import dask
import dask.dataframe as dd
import pandas as pd
import polars as pl
from dask.dataframe.extensions import register_dataframe_accessor, register_series_accessor

from gradeframe import _frames
from gradeframe import samples as sample_rules
from gradeframe._cost import check_cost
from gradeframe._cost import input_columns as cost_columns
from gradeframe._delegate import delegates
from gradeframe._inputs import IntoExpr
from gradeframe._pandas import PandasFrameGrade, PandasSeriesGrade
from gradeframe._record import BY_NAME
from gradeframe._summary_inputs import pandas_report_columns
from gradeframe.report import report_counts, report_from_counts
from gradeframe.samples import Groups, On

#: The Dask releases gradeframe.dask is tested with (the lower bound by ``.ci/run``, in a
#: virtual environment of its own; the ``dask`` extra in pyproject.toml declares the range).
DASK_TESTED: Final = "2025.1.0 to 2026.8.0"


def _unsupported_dask(error: BaseException) -> str:
    return (
        f"gradeframe.dask keeps list and record columns out of Dask's string conversion by "
        f"rewriting Dask's own expression classes (no public Dask API does it); this Dask "
        f"({dask.__version__}) does not have them as gradeframe knows them ({error}). "
        f"gradeframe.dask is tested with Dask {DASK_TESTED}: "
        "pip install 'gradeframe[dask]' installs one of those."
    )


# Dask internals, the only ones used (the public API has no way to rewrite a frame's string
# conversion): the conversion expression, its pandas source, and the conversion itself.
try:
    from dask.dataframe._pyarrow import to_pyarrow_string
    from dask.dataframe.dask_expr import new_collection
    from dask.dataframe.dask_expr._expr import ArrowStringConversion, Elemwise
    from dask.dataframe.dask_expr.io.io import FromPandas
except ImportError as error:  # pragma: no cover - tested in a subprocess with them hidden
    raise ImportError(_unsupported_dask(error)) from error

__all__ = [
    "DASK_TESTED",
    "DaskFrameGrade",
    "DaskSeriesGrade",
    "consistency",
    "flaky",
    "keep_objects",
    "pass_at_k",
    "report",
]


# --------------------------------------------------------------------------------------------
# Dask's string conversion: keep lists and records as they are
# --------------------------------------------------------------------------------------------


def _strings_except(frame: Any, keep: tuple[str, ...]) -> Any:
    """Dask's object-to-string conversion, except for the columns in ``keep``."""
    if isinstance(frame, pd.Series):  # a projection to one column
        return frame if frame.name in keep else to_pyarrow_string(frame)
    kept = [c for c in keep if c in frame.columns]
    converted = to_pyarrow_string(frame.drop(columns=kept))
    for name in kept:
        converted[name] = frame[name]
    return converted[list(frame.columns)]


class _StringsExcept(Elemwise):
    """Dask's ``ArrowStringConversion``, leaving the named columns as they are."""

    _projection_passthrough = True
    _filter_passthrough = True
    _parameters = ["frame", "keep"]  # noqa: RUF012  (Dask's own convention)
    operation = staticmethod(_strings_except)
    _preserves_partitioning_information = True


def _holds_only_text(values: pd.Series) -> bool:
    return pd.api.types.infer_dtype(values, skipna=True) in ("string", "empty")


def keep_objects(frame: dd.DataFrame, columns: Iterable[str]) -> dd.DataFrame:
    """Return ``frame`` with the named object columns kept out of Dask's string conversion.

    With ``dataframe.convert-string`` on (the default), ``dd.from_pandas``, ``dd.from_delayed``,
    ``dd.from_map`` and ``dd.from_array`` convert every object column to strings, so a column of
    lists or dicts would hold their printed text. This rewrites those conversions in the frame's
    expression so that the named columns keep their values: from a pandas frame, the columns
    that hold anything but text; from other sources (whose data is not known before it is read),
    every named object column. Other columns are converted as Dask would. The caller's frame is
    not changed.

    Parameters
    ----------
    frame
        A Dask DataFrame.
    columns
        The column names to protect (the grading methods pass the columns they read).

    Returns
    -------
    dask.dataframe.DataFrame
        The same rows, with the named columns as they are in the source.
    """
    try:
        return _keep_objects(frame, set(columns))
    except AttributeError as error:  # pragma: no cover - a Dask whose expressions changed
        raise RuntimeError(_unsupported_dask(error)) from error


def _keep_objects(frame: dd.DataFrame, wanted: set[str]) -> dd.DataFrame:
    expr = frame.expr
    for node in list(expr.walk()):
        if isinstance(node, FromPandas) and node.pyarrow_strings_enabled:
            data = node.frame._data
            present = getattr(data, "columns", ())  # a Series has no columns to keep
            keep = tuple(
                sorted(
                    name
                    for name in wanted
                    if name in present
                    and data[name].dtype == object
                    and not _holds_only_text(data[name])
                )
            )
            if keep:
                raw = node.substitute_parameters({"pyarrow_strings_enabled": False})
                expr = expr.substitute(node, _StringsExcept(raw, keep))
        elif isinstance(node, ArrowStringConversion):
            meta = node.frame._meta
            columns_of = getattr(meta, "columns", [])
            keep = tuple(sorted(n for n in wanted if n in columns_of and meta[n].dtype == object))
            if keep:
                expr = expr.substitute(node, _StringsExcept(node.frame, keep))
    if expr is frame.expr:
        return frame
    return new_collection(expr)


# --------------------------------------------------------------------------------------------
# Grading methods: the pandas accessor per partition
# --------------------------------------------------------------------------------------------


def _columns_named(frame: Any, values: Iterable[Any]) -> set[str]:
    """Return the frame's columns that the arguments name (strings, or the roots of expressions)."""
    present = {str(c) for c in frame.columns}
    names: set[str] = set()
    for value in values:
        names.update(n for n in _frames.column_names(value) if n in present)
    return names


def _grade_partition(
    partition: pd.DataFrame,
    method: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> pd.DataFrame:
    return getattr(partition.grade, method)(*args, **kwargs)


def _grading(method: str) -> Callable[..., dd.DataFrame]:
    """Make a Dask method that runs the pandas accessor's ``method`` on every partition."""

    def run(self: DaskFrameGrade, *args: Any, **kwargs: Any) -> dd.DataFrame:
        columns = _columns_named(self._frame, [*args, *kwargs.values()])
        if method == "answer_contains" or kwargs.get("answer") is not None:  # read by name
            columns |= _columns_named(self._frame, [r for r in BY_NAME if kwargs.get(r) is None])
        frame = keep_objects(self._frame, columns)
        # The empty frame: checks every argument and gives the exact output dtypes.
        meta = _grade_partition(frame._meta, method, args, kwargs)
        grade = functools.partial(_grade_partition, method=method, args=args, kwargs=kwargs)
        return frame.map_partitions(grade, meta=meta, token=f"grade-{method}")

    pandas_method = getattr(PandasFrameGrade, method, None)
    if pandas_method is not None:  # the same signature and documentation
        functools.update_wrapper(run, pandas_method)
    run.__doc__ = (
        f"Run ``{method}`` on every partition, lazily.\n\n"
        "The arguments are checked on the empty frame before any data is read, and the result's "
        "dtypes are known up front (its ``meta``).\n\n" + (run.__doc__ or "")
    )
    return run


# --------------------------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------------------------


def _partition_counts(
    partition: pd.DataFrame, columns: dict[str, None], options: dict[str, Any]
) -> pl.DataFrame:
    return report_counts(_frames.to_polars(partition, columns), **options)


def report(
    frame: dd.DataFrame,
    by: Any = None,
    *,
    correct: str = "correct",
    failure_kind: str | None = "failure_kind",
    prefix: str = "",
    cluster: str | None = None,
    score: str | None = None,
    cost: Any = None,
) -> pd.DataFrame:
    """Summarise a graded Dask frame per group, from counts summed over the partitions.

    The same columns and values as :func:`gradeframe.report` on the whole data. Each partition
    gives its counts per group (and per cluster: :func:`gradeframe.report_counts`); they are
    stacked and the report is built once from their sums
    (:func:`gradeframe.report_from_counts`), never by averaging partitions' intervals.

    With ``cost``, the token sums, the cost and the counts of unknowns are sums too, so every
    cost column is the same as on the whole data but ``seconds_p50``/``seconds_p95``: a
    percentile is not a sum of partitions' percentiles, and computing it exactly would gather
    every row's ``seconds`` on one machine, so Dask's report leaves them out (compute them from
    ``frame.groupby(by)["seconds"]`` if the column fits in memory).

    Parameters
    ----------
    frame
        A graded Dask DataFrame.
    by, correct, failure_kind, prefix, cluster, score, cost
        As for :func:`gradeframe.report`. They are checked before any data is read.

    Returns
    -------
    pandas.DataFrame
        The report (computed).
    """
    prices = check_cost(cost)
    options = {
        "by": by,
        "correct": correct,
        "failure_kind": failure_kind,
        "prefix": prefix,
        "cluster": cluster,
        "score": score,
        "cost": prices,
    }
    # Arguments and columns are checked on the empty frame, before any data is read.
    meta = frame._meta
    columns = pandas_report_columns(meta, by, correct, failure_kind, prefix, cluster, score)
    if prices is not None:
        columns |= dict.fromkeys(cost_columns([str(c) for c in meta.columns], prices))
    empty = report_counts(_frames.to_polars(meta, columns), **options)
    parts = frame[list(columns)].to_delayed()
    pieces = dask.compute(
        *[dask.delayed(_partition_counts)(part, columns, options) for part in parts]
    )
    # report_from_counts sums repeated keys (a kind column a piece lacks counts 0).
    counts = pl.concat([empty, *pieces], how="diagonal_relaxed")
    out = report_from_counts(counts, by, cluster=cluster, score=score)
    return _frames.to_pandas_frame(out)


# --------------------------------------------------------------------------------------------
# Repeated samples: per-item counts summed over the partitions
# --------------------------------------------------------------------------------------------


def _partition_samples(
    partition: pd.DataFrame,
    columns: dict[str, Any],
    groups: list[str],
    items: list[str],
    correct: str,
    answer: IntoExpr | None,
    vote: str = "fold",
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    frame = _frames.to_polars(partition, columns)
    counts = sample_rules.sample_counts(frame, groups, items, correct).collect()
    if answer is None:
        return counts, None
    votes = sample_rules.vote_counts(frame, groups, items, correct, answer, vote)
    return counts, votes.collect()


def _summed_samples(
    frame: dd.DataFrame,
    function: str,
    by: Groups,
    on: On,
    correct: str,
    answer: IntoExpr | None,
    outputs: Sequence[str],
    vote: sample_rules.Vote = ...,
) -> tuple[list[str], list[str], pl.LazyFrame, pl.LazyFrame | None]:
    """Check the arguments on the empty frame, then sum every partition's counts."""
    vote = sample_rules.resolve_vote(vote, [str(c) for c in frame.columns])
    columns, groups, items = sample_rules.pandas_columns(frame._meta, by, on, correct, answer)
    if answer is not None:
        frame = keep_objects(frame, _columns_named(frame, [answer]))
    empty = _frames.to_polars(frame._meta, columns)
    groups, items, _, _ = sample_rules.prepare(
        empty, function, groups, items, correct, answer, outputs
    )
    parts = frame[list(columns)].to_delayed()
    pieces = dask.compute(
        *[
            dask.delayed(_partition_samples)(part, columns, groups, items, correct, answer, vote)
            for part in parts
        ]
    )
    keys = [*groups, *items]
    counts = pl.concat([p[0] for p in pieces], how="vertical_relaxed").lazy()
    counts = sample_rules.summed(counts, keys)
    votes = None
    if answer is not None:
        votes = pl.concat([p[1] for p in pieces], how="vertical_relaxed").lazy()  # type: ignore[misc]
        votes = sample_rules.summed(votes, [*keys, *sample_rules.VOTE_KEYS])
    return groups, items, counts, votes


def pass_at_k(
    frame: dd.DataFrame,
    k: int | Sequence[int] = 1,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
) -> pd.DataFrame:
    """Estimate pass@k on a graded Dask frame, from per-item counts summed over partitions.

    The same columns and values as :func:`gradeframe.pass_at_k` on the whole data (an item's
    samples may sit in several partitions). Computes; returns pandas.

    Parameters
    ----------
    frame
        A graded Dask DataFrame: one row per sample.
    k, by, on, correct
        As for :func:`gradeframe.pass_at_k`. They are checked before any data is read.
    """
    ks = sample_rules.check_ks(k)
    outputs = sample_rules.PASS_AT_K_COLUMNS
    groups, _, counts, _ = _summed_samples(frame, "pass_at_k", by, on, correct, None, outputs)
    table = sample_rules.pass_at_k_from_counts(counts, groups, ks).collect()
    return _frames.to_pandas_frame(table)


def consistency(
    frame: dd.DataFrame,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
    answer: IntoExpr | None = None,
    vote: sample_rules.Vote = ...,
) -> pd.DataFrame:
    """Summarise the samples' consistency on a Dask frame, from counts summed over partitions.

    The same columns and values as :func:`gradeframe.consistency` on the whole data. Computes;
    returns pandas.

    Parameters
    ----------
    frame
        A graded Dask DataFrame: one row per sample.
    by, on, correct, answer, vote
        As for :func:`gradeframe.consistency`. They are checked before any data is read.
    """
    outputs = sample_rules.CONSISTENCY_OUTPUTS
    groups, items, counts, votes = _summed_samples(
        frame, "consistency", by, on, correct, answer, outputs, vote
    )
    table = sample_rules.consistency_from_counts(counts, votes, groups, items).collect()
    return _frames.to_pandas_frame(table)


def flaky(
    frame: dd.DataFrame,
    *,
    by: Groups = ...,
    on: On = None,
    correct: str = "correct",
    answer: IntoExpr | None = None,
    vote: sample_rules.Vote = ...,
) -> pd.DataFrame:
    """List the flaky items of a Dask frame, from counts summed over partitions.

    The same columns and values as :func:`gradeframe.flaky` on the whole data. Computes;
    returns pandas.

    Parameters
    ----------
    frame
        A graded Dask DataFrame: one row per sample.
    by, on, correct, answer, vote
        As for :func:`gradeframe.flaky`. They are checked before any data is read.
    """
    outputs = sample_rules.FLAKY_OUTPUTS
    groups, items, counts, votes = _summed_samples(
        frame, "flaky", by, on, correct, answer, outputs, vote
    )
    table = sample_rules.flaky_from_counts(counts, votes, groups, items).collect()
    return _frames.to_pandas_frame(table)


# --------------------------------------------------------------------------------------------
# The accessors
# --------------------------------------------------------------------------------------------


@register_dataframe_accessor("grade")
class DaskFrameGrade:
    """``ddf.grade``: gradeframe on a Dask DataFrame, one pandas partition at a time."""

    def __init__(self, frame: dd.DataFrame) -> None:
        self._frame = frame

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

    @delegates(report, lock=False)  # its partitions lock, in Dask's threads
    def report(  # noqa: D102 (the docstring is the function's, set by @delegates)
        self,
        by: Any = None,
        *,
        correct: str = "correct",
        failure_kind: str | None = "failure_kind",
        prefix: str = "",
        cluster: str | None = None,
        score: str | None = None,
        cost: Any = None,
    ) -> pd.DataFrame:
        return report(
            self._frame,
            by,
            correct=correct,
            failure_kind=failure_kind,
            prefix=prefix,
            cluster=cluster,
            score=score,
            cost=cost,
        )

    @delegates(pass_at_k, lock=False)  # its partitions lock, in Dask's threads
    def pass_at_k(  # noqa: D102 (the docstring is the function's, set by @delegates)
        self,
        k: int | Sequence[int] = 1,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
    ) -> pd.DataFrame:
        return pass_at_k(self._frame, k, by=by, on=on, correct=correct)

    @delegates(consistency, lock=False)  # its partitions lock, in Dask's threads
    def consistency(  # noqa: D102
        self,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
        answer: IntoExpr | None = None,
        vote: sample_rules.Vote = ...,
    ) -> pd.DataFrame:
        return consistency(self._frame, by=by, on=on, correct=correct, answer=answer, vote=vote)

    @delegates(flaky, lock=False)  # its partitions lock, in Dask's threads
    def flaky(  # noqa: D102
        self,
        *,
        by: Groups = ...,
        on: On = None,
        correct: str = "correct",
        answer: IntoExpr | None = None,
        vote: sample_rules.Vote = ...,
    ) -> pd.DataFrame:
        return flaky(self._frame, by=by, on=on, correct=correct, answer=answer, vote=vote)


def _series_partition(
    series: pd.Series, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> Any:
    return getattr(series.grade, method)(*args, **kwargs)


def _series_method(method: str) -> Callable[..., dd.Series]:
    """Make a Dask Series method that runs the pandas Series accessor's ``method``."""

    def run(self: DaskSeriesGrade, *args: Any, **kwargs: Any) -> dd.Series:
        meta = _series_partition(self._series._meta, method, args, kwargs)
        apply = functools.partial(_series_partition, method=method, args=args, kwargs=kwargs)
        return self._series.map_partitions(apply, meta=meta, token=f"grade-{method}")

    pandas_method = getattr(PandasSeriesGrade, method, None)
    if pandas_method is not None:  # the same signature and documentation
        functools.update_wrapper(run, pandas_method)
    run.__doc__ = f"Run ``{method}`` on every partition, lazily.\n\n" + (run.__doc__ or "")
    return run


@register_series_accessor("grade")
class DaskSeriesGrade:
    """``ds.grade``: the text rules on a Dask Series, one pandas partition at a time."""

    def __init__(self, series: dd.Series) -> None:
        self._series = series

    fold = _series_method("fold")
    is_not_found = _series_method("is_not_found")
    is_refusal = _series_method("is_refusal")
    extract_answer = _series_method("extract_answer")
    extract = _series_method("extract")
    extract_number = _series_method("extract_number")
    extract_boxed = _series_method("extract_boxed")
