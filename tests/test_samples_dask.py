"""Repeated samples on Dask: counts summed over partitions give the one-frame results."""

from __future__ import annotations

import random

import pandas as pd
import polars as pl
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import gradeframe as gf  # noqa: E402
import gradeframe.dask as gf_dask  # noqa: E402
from tests.utils import to_data  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def client():
    """One in-process 2-worker cluster for the module."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with distributed.Client(cluster) as client:
        yield client
    cluster.close()


def samples_frame(seed: int = 0) -> pl.DataFrame:
    """Two models, 12 items, 1 to 6 samples each, answers with spellings that fold together."""
    rng = random.Random(seed)
    spellings = ["1,000", "1000", "999", "Paris", "paris", None, ""]
    rows = []
    for model in ("a", "b"):
        for item in range(12):
            for _ in range(rng.randint(1, 6)):
                answer = rng.choice(spellings)
                right = answer in ("1,000", "1000", "Paris", "paris") and rng.random() < 0.9
                rows.append((model, f"q{item:02d}", answer, right if rng.random() > 0.05 else None))
    rng.shuffle(rows)  # an item's samples end up in several partitions
    return pl.DataFrame(rows, schema=["model", "question_id", "answer", "correct"], orient="row")


def as_pandas(frame: pl.DataFrame) -> pd.DataFrame:
    """The frame in pandas, with a nullable Boolean `correct` (an object column would be text)."""
    pdf = frame.to_pandas()
    pdf["correct"] = pdf["correct"].astype("boolean")
    return pdf


def same(result: pd.DataFrame, expected: pl.DataFrame) -> None:
    """Equal columns and values; floats to 1e-15 (sums of the same values, other chunks)."""
    got, want = to_data(result), to_data(expected)
    assert list(got) == list(want)
    for name in got:
        assert [type(v) for v in got[name]] == [type(v) for v in want[name]], name
        assert got[name] == pytest.approx(want[name], abs=1e-15, nan_ok=True), name


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_dask_samples_equal_the_polars_results(npartitions: int) -> None:
    frame = samples_frame()
    ddf = dd.from_pandas(as_pandas(frame), npartitions=npartitions)
    same(ddf.grade.pass_at_k([1, 2, 5]), gf.pass_at_k(frame, [1, 2, 5]))
    same(ddf.grade.consistency(answer="answer"), gf.consistency(frame, answer="answer"))
    assert to_data(gf_dask.flaky(ddf, answer="answer")) == to_data(gf.flaky(frame, answer="answer"))


@pytest.mark.parametrize("vote", ["fold", "equivalent"])
def test_dask_votes_on_values_equal_the_polars_results(vote: str) -> None:
    frame = samples_frame().with_columns(
        pl.col("answer").replace({"1000": "1e3", "999": "\\frac{1998}{2}"})
    )
    ddf = dd.from_pandas(as_pandas(frame), npartitions=3)
    same(
        ddf.grade.consistency(answer="answer", vote=vote),
        gf.consistency(frame, answer="answer", vote=vote),
    )
    listed = gf_dask.flaky(ddf, answer="answer", vote=vote)
    assert to_data(listed) == to_data(gf.flaky(frame, answer="answer", vote=vote))


def test_dask_samples_check_arguments_before_reading() -> None:
    ddf = dd.from_pandas(as_pandas(samples_frame()), npartitions=2)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="on"):
        ddf.grade.pass_at_k(on="item")
    with pytest.raises(ValueError, match="at least 1"):
        ddf.grade.pass_at_k(0)
    assert isinstance(ddf.grade.flaky(), pd.DataFrame)
