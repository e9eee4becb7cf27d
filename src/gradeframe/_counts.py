"""Summing report counts from the pieces a distributed engine grades (Dask partitions, Spark tasks).

Each piece gives :func:`gradeframe.report_counts`; :func:`sum_counts` stacks them and sums them
per key, sorted by the keys, which is exactly what ``report_counts`` gives on the whole data. So
:func:`gradeframe.report_from_counts` then sees the same input, row for row, as it does inside
:func:`gradeframe.report`, and gives the same report to the last bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

__all__ = ["sum_counts"]


def sum_counts(pieces: Sequence[pl.DataFrame], by: Any, cluster: str | None) -> pl.DataFrame:
    """Stack counts frames (a kind column a piece lacks counts 0) and sum them per key.

    Parameters
    ----------
    pieces
        Outputs of :func:`gradeframe.report_counts` with the same ``by`` and ``cluster``; at
        least one (the counts of the empty frame are a good first piece: they fix the schema).
    by, cluster
        The group columns and the cluster column given to ``report_counts``.

    Returns
    -------
    pl.DataFrame
        One row per key, sorted by the keys (nulls last); every other column summed.

    Examples
    --------
    >>> import polars as pl
    >>> a = pl.DataFrame({"m": ["x", "y"], "n": [2, 1], "n_correct": [1, 1]})
    >>> b = pl.DataFrame({"m": ["x"], "n": [3], "n_correct": [0], "timeout": [1]})
    >>> sum_counts([a, b], "m", None)
    shape: (2, 4)
    ┌─────┬─────┬───────────┬─────────┐
    │ m   ┆ n   ┆ n_correct ┆ timeout │
    │ --- ┆ --- ┆ ---       ┆ ---     │
    │ str ┆ i64 ┆ i64       ┆ i64     │
    ╞═════╪═════╪═══════════╪═════════╡
    │ x   ┆ 5   ┆ 1         ┆ 1       │
    │ y   ┆ 1   ┆ 1         ┆ 0       │
    └─────┴─────┴───────────┴─────────┘
    """
    keys = [] if by is None else [by] if isinstance(by, str) else list(by)
    keys += [cluster] if cluster is not None else []
    stacked = pl.concat(list(pieces), how="diagonal_relaxed")
    values = [c for c in stacked.columns if c not in keys]
    stacked = stacked.with_columns(pl.col(values).fill_null(0))
    if not keys:
        return stacked.select(pl.col(values).sum())
    return stacked.group_by(keys).agg(pl.col(values).sum()).sort(keys, nulls_last=True)
