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
from collections.abc import Callable, Iterable
from typing import Any, Final

import dask
import dask.dataframe as dd
import pandas as pd
import polars as pl
from dask.dataframe.extensions import register_dataframe_accessor, register_series_accessor

from gradeframe import _frames
from gradeframe import samples as sample_rules
from gradeframe._cost import input_columns as cost_columns
from gradeframe._delegate import add_methods
from gradeframe._engines import SamplesCall, Summed, counted_samples, summaries
from gradeframe._methods import GRADING
from gradeframe._pandas import PandasFrameGrade, PandasSeriesGrade
from gradeframe._record import BY_NAME
from gradeframe._summary_inputs import pandas_report_columns
from gradeframe.report import report_counts, report_from_counts

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


def _report(frame: dd.DataFrame, options: dict[str, Any]) -> pd.DataFrame:
    """Count every partition's rows per group; the report from the sums (see :func:`report`)."""
    # Arguments and columns are checked on the empty frame, before any data is read.
    meta = frame._meta
    names = [options[n] for n in ("by", "correct", "failure_kind", "prefix", "cluster", "score")]
    columns = pandas_report_columns(meta, *names)
    if options["cost"] is not None:
        columns |= dict.fromkeys(cost_columns([str(c) for c in meta.columns], options["cost"]))
    empty = report_counts(_frames.to_polars(meta, columns), **options)
    parts = frame[list(columns)].to_delayed()
    pieces = dask.compute(
        *[dask.delayed(_partition_counts)(part, columns, options) for part in parts]
    )
    # report_from_counts sums repeated keys (a kind column a piece lacks counts 0).
    counts = pl.concat([empty, *pieces], how="diagonal_relaxed")
    out = report_from_counts(
        counts, options["by"], cluster=options["cluster"], score=options["score"]
    )
    return _frames.to_pandas_frame(out)


# --------------------------------------------------------------------------------------------
# Repeated samples: per-item counts summed over the partitions
# --------------------------------------------------------------------------------------------


def _partition_samples(
    partition: pd.DataFrame, columns: dict[str, Any], options: dict[str, Any]
) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    return counted_samples(_frames.to_polars(partition, columns), **options)


def _summed_samples(frame: dd.DataFrame, call: SamplesCall) -> Summed:
    """Check the arguments on the empty frame, then sum every partition's counts."""
    correct, answer = call.correct, call.answer
    vote = sample_rules.resolve_vote(call.vote, [str(c) for c in frame.columns])
    columns, groups, items = sample_rules.pandas_columns(
        frame._meta, call.by, call.on, correct, answer
    )
    if answer is not None:
        frame = keep_objects(frame, _columns_named(frame, [answer]))
    empty = _frames.to_polars(frame._meta, columns)
    groups, items, _, _ = sample_rules.prepare(
        empty, call.function, groups, items, correct, answer, call.outputs
    )
    options = {"groups": groups, "items": items, "correct": correct, "answer": answer}
    parts = frame[list(columns)].to_delayed()
    delayed = dask.delayed(_partition_samples)
    pieces = dask.compute(*[delayed(part, columns, {**options, "vote": vote}) for part in parts])
    keys = [*groups, *items]
    counts = pl.concat([p[0] for p in pieces], how="vertical_relaxed").lazy()
    counts = sample_rules.summed(counts, keys)
    votes = None
    if answer is not None:
        votes = pl.concat([p[1] for p in pieces], how="vertical_relaxed").lazy()  # type: ignore[misc]
        votes = sample_rules.summed(votes, [*keys, *sample_rules.VOTE_KEYS])
    return groups, items, counts, votes


report, pass_at_k, consistency, flaky = summaries(__name__, _report, _summed_samples)


# --------------------------------------------------------------------------------------------
# The accessors
# --------------------------------------------------------------------------------------------


@register_dataframe_accessor("grade")
class DaskFrameGrade:
    """``ddf.grade``: gradeframe on a Dask DataFrame, one pandas partition at a time."""

    def __init__(self, frame: dd.DataFrame) -> None:
        self._frame = frame

    def _summarize(self, function: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return function(self._frame, *args, **kwargs)


# The grading methods of the pandas accessor but rubric, each run on every partition.
for _name in GRADING:
    if _name != "rubric":
        setattr(DaskFrameGrade, _name, _grading(_name))

# Computed from partitions graded in Dask's threads (which lock): not run under the lock.
add_methods(
    {f.__name__: (f, None) for f in (report, pass_at_k, consistency, flaky)},
    returns="pd.DataFrame",
    runner="_summarize",
    lock=False,
)(DaskFrameGrade)


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
