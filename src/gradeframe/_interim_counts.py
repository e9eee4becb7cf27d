"""Interim stand-ins for ``report_counts`` and ``report_from_counts`` (to be replaced).

The report module is gaining the public ``gradeframe.report_counts`` and
``gradeframe.report_from_counts`` (with ``cluster=`` and ``score=``). Until they land, the Dask
and Spark adapters use these two, which are built only from the existing :func:`report` and
:func:`wilson_interval` (no rule is written twice): a piece's counts are its report without the
non-additive columns, and the report is recomputed from the summed counts. Swapping in the real
functions is one import in :mod:`gradeframe._counts`.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from gradeframe import kinds
from gradeframe.report import report, wilson_interval

_NOT_ADDITIVE = ("accuracy", "ci_low", "ci_high")


def _keys(by: Any) -> list[str]:
    return [] if by is None else [by] if isinstance(by, str) else list(by)


def report_counts(
    frame: Any,
    by: Any = None,
    *,
    correct: str = "correct",
    failure_kind: str = "failure_kind",
    prefix: str = "",
    cluster: str | None = None,
    score: str | None = None,
) -> Any:
    """Return a piece's additive counts: its report without accuracy and the interval."""
    if score is not None or cluster is not None:
        msg = "`cluster=` and `score=` need gradeframe.report_counts, not yet available here"
        raise NotImplementedError(msg)
    if correct == "correct":
        correct = prefix + correct
    if failure_kind == "failure_kind":
        failure_kind = prefix + failure_kind
    out = report(frame, by, correct=correct, failure_kind=failure_kind)
    return out.drop(list(_NOT_ADDITIVE))


def report_from_counts(
    counts: pl.DataFrame, by: Any = None, *, cluster: str | None = None, score: str | None = None
) -> pl.DataFrame:
    """Return the report from summed counts: accuracy and its Wilson interval, kinds in order."""
    if score is not None or cluster is not None:
        msg = "`cluster=` and `score=` need gradeframe.report_from_counts, not yet available here"
        raise NotImplementedError(msg)
    group = _keys(by)
    if group:
        counts = counts.group_by(group).agg(pl.exclude(group).sum()).sort(group, nulls_last=True)
    else:
        counts = counts.select(pl.all().sum())
    present = [c for c in counts.columns if c not in group and c not in ("n", "n_correct")]
    carried = sorted(set(present) - set(kinds.KINDS))
    low, high = wilson_interval("n_correct", "n")
    accuracy = pl.when(pl.col("n") > 0).then(pl.col("n_correct") / pl.col("n")).alias("accuracy")
    kind_columns = [
        pl.col(k) if k in counts.columns else pl.lit(0, pl.Int64).alias(k) for k in kinds.KINDS
    ]
    return counts.select(
        *group,
        pl.col("n").cast(pl.Int64),
        pl.col("n_correct").cast(pl.Int64),
        accuracy,
        low,
        high,
        *[c.cast(pl.Int64) for c in kind_columns],
        *[pl.col(k).cast(pl.Int64) for k in carried],
    )
