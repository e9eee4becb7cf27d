"""report_counts / report_from_counts: the additive step and the step that needs every count.

Distributed engines count each partition, concatenate and sum; the report from the summed counts
must be exactly the report of the whole frame.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from tests.utils import make_frame, to_data

KIND_POOL = [None, "wrong", "refusal", "timeout", "parse_failure", "quota"]


def generated(seed: int, rows: int = 400) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    correct = rng.random(rows) < 0.6
    kind = [None if c else KIND_POOL[1 + rng.integers(0, 5)] for c in correct]
    return pl.DataFrame(
        {
            "model": rng.choice(["a", "b", "c"], rows),
            "question_id": [f"q{i:02d}" for i in rng.integers(0, 40, rows)],
            "correct": correct,
            "failure_kind": kind,
            "f1": np.round(rng.random(rows), 3),
        }
    )


def partitioned_report(frame: pl.DataFrame, parts: int, **kwargs: Any) -> pl.DataFrame:
    """Count each slice apart, concatenate diagonally, sum by the keys, report once."""
    keys = [*([kwargs["by"]] if kwargs.get("by") else [])]
    if kwargs.get("cluster"):
        keys.append(kwargs["cluster"])
    bounds = np.linspace(0, frame.height, parts + 1).astype(int)
    counts = [
        gf.report_counts(frame[start:stop], **kwargs) for start, stop in itertools.pairwise(bounds)
    ]
    stacked = pl.concat(counts, how="diagonal")
    summed = (
        stacked.group_by(keys).agg(pl.all().fill_null(0).sum())
        if keys
        else stacked.select(pl.all().fill_null(0).sum())
    )
    by = kwargs.get("by")
    return gf.report_from_counts(
        summed, by, cluster=kwargs.get("cluster"), score=kwargs.get("score")
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(
    "kwargs",
    [
        {"by": "model"},
        {"by": None},
        {"by": "model", "cluster": "question_id"},
        {"by": "model", "score": "f1"},
        {"by": "model", "cluster": "question_id", "score": "f1"},
        {"by": None, "cluster": "question_id", "score": "f1"},
    ],
    ids=["by", "whole", "cluster", "score", "cluster_score", "whole_cluster_score"],
)
def test_partition_summed_counts_give_exactly_the_whole_report(
    seed: int, kwargs: dict[str, Any]
) -> None:
    frame = generated(seed)
    whole = gf.report(frame, kwargs["by"], **{k: v for k, v in kwargs.items() if k != "by"})
    # Small slices: some partitions lack a carried kind, so the diagonal concat leaves nulls.
    parts = partitioned_report(frame, 7, **kwargs)
    assert parts.columns == whole.columns
    # Everything from counts is exact (the clustered sum in 128-bit integers); the score's sums
    # are floats, which partitions add in another order: equal to rounding.
    score = ["mean_score", "score_ci_low", "score_ci_high"]
    assert parts.drop(score, strict=False).equals(whole.drop(score, strict=False))
    for name in score:
        if name in whole.columns:
            np.testing.assert_allclose(
                parts.get_column(name).to_numpy(),
                whole.get_column(name).to_numpy(),
                rtol=1e-12,
                atol=1e-12,
            )


def test_report_is_report_from_counts_of_report_counts(constructor: Any) -> None:
    data = generated(11, 60).to_dict(as_series=False)
    frame = constructor(data)
    kwargs = {"cluster": "question_id", "score": "f1"}
    direct = gf.report(frame, "model", **kwargs)
    counts = gf.report_counts(frame, "model", **kwargs)
    assert type(counts) is type(frame)
    assert to_data(gf.report_from_counts(counts, "model", **kwargs)) == to_data(direct)


def test_counts_columns_are_keys_then_additive_columns(constructor: Any) -> None:
    frame = constructor(generated(3, 50).to_dict(as_series=False))
    counts = to_data(gf.report_counts(frame, "model", cluster="question_id", score="f1"))
    assert list(counts)[:6] == ["model", "question_id", "n", "n_correct", *gf.KINDS[:2]]
    assert list(counts)[-3:] == ["score_n", "score_sum", "score_sumsq"]
    assert "quota" in counts
    assert "timeout" in counts


def test_counts_of_a_matcher_output_have_no_kind_columns(constructor: Any) -> None:
    frame = constructor({"model": ["a", "b"], "correct": [True, False]})
    assert list(to_data(gf.report_counts(frame, "model"))) == ["model", "n", "n_correct"]


def test_counts_without_by_give_one_row_even_when_empty() -> None:
    empty = pl.DataFrame(schema={"correct": pl.Boolean, "failure_kind": pl.String})
    counts = gf.report_counts(empty)
    assert counts.height == 1
    assert counts.row(0) == (0,) * counts.width


def test_report_from_counts_sums_repeated_keys_itself() -> None:
    frame = generated(5)
    halves = pl.concat(
        [gf.report_counts(frame[:150], "model"), gf.report_counts(frame[150:], "model")],
        how="diagonal",
    )
    assert gf.report_from_counts(halves, "model").equals(gf.report(frame, "model"))


def test_lazy_counts_stay_lazy_with_carried_kinds_named() -> None:
    lazy = generated(2).lazy()
    counts = gf.report_counts(lazy, "model", carried_kinds=["timeout", "quota"])
    assert isinstance(counts, pl.LazyFrame)
    assert isinstance(gf.report_from_counts(counts, "model"), pl.LazyFrame)


def test_report_from_counts_on_pandas_counts() -> None:
    frame = generated(8)
    counts = gf.report_counts(frame.to_pandas(), "model", score="f1")
    assert isinstance(counts, pd.DataFrame)
    out = gf.report_from_counts(counts, "model", score="f1")
    assert isinstance(out, pd.DataFrame)
    expected = to_data(gf.report(frame, "model", score="f1"))
    got = to_data(out)
    assert list(got) == list(expected)
    np.testing.assert_allclose(got["score_ci_high"], expected["score_ci_high"], rtol=1e-12)


def test_report_from_counts_names_a_missing_count_column() -> None:
    counts = pl.DataFrame({"model": ["a"], "n": [3], "n_correct": [1]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="'score_n'"):
        gf.report_from_counts(counts, "model", score="f1")


def test_pandas_arrow_counts_round_trip() -> None:
    frame = make_frame("pandas_arrow", generated(9, 80).to_dict(as_series=False))
    counts = gf.report_counts(frame, "model")
    assert to_data(gf.report_from_counts(counts, "model")) == to_data(gf.report(frame, "model"))
