"""Additive report counts for engines that grade in pieces (Dask partitions, Spark batches).

A report is built in two steps so that it can be summed across pieces: each piece gives its
counts (``report_counts``: one row per group, every column additive), the pieces' counts are
stacked and summed per group (:func:`combine_counts`), and the report is computed once from the
sums (``report_from_counts``), never by averaging the pieces' intervals.

``report_counts`` and ``report_from_counts`` come from :mod:`gradeframe._interim_counts` until the
report module has them; then this import is the one line to change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import polars as pl

from gradeframe._interim_counts import report_counts, report_from_counts

__all__ = ["combine_counts", "keys_of", "report_counts", "report_from_counts"]


def keys_of(by: Any, cluster: str | None) -> list[str]:
    """Return the key columns of a counts frame: the group columns, then the cluster column."""
    keys = [] if by is None else [by] if isinstance(by, str) else list(by)
    return [*keys, cluster] if cluster is not None else keys


def combine_counts(pieces: Sequence[pl.DataFrame], keys: Sequence[str]) -> pl.DataFrame:
    """Stack counts frames (a kind missing from a piece counts 0) and sum them per key.

    Every column that is not a key is additive. The first piece fixes the column order; kinds
    that only later pieces have come after it.
    """
    if not pieces:
        msg = "combine_counts needs at least one counts frame"
        raise ValueError(msg)
    stacked = pl.concat(list(pieces), how="diagonal_relaxed")
    values = [c for c in stacked.columns if c not in keys]
    stacked = stacked.with_columns(pl.col(values).fill_null(0))
    if not keys:
        return stacked.select(pl.col(values).sum())
    return stacked.group_by(list(keys), maintain_order=True).agg(pl.col(values).sum())
