"""Repeated samples on Spark: every task's counts summed on the driver give one frame's results.

The task function (``sample_batches``) and the driver's sum (``summed_sample_counts``) are
tested without Spark, on Arrow batches cut into several "tasks"; the whole path through
``mapInArrow`` runs where Spark and Java are installed (.ci/run).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys

import polars as pl
import pytest

import gradeframe as gf
from gradeframe import _arrow
from gradeframe import samples as sample_rules
from gradeframe import spark as gs
from tests.test_samples_dask import samples_frame
from tests.utils import to_data


def _tasks(frame: pl.DataFrame, tasks: int, answer: str | None) -> list[tuple[bytes, bytes]]:
    """Run the task function on ``tasks`` slices of the frame's Arrow batches."""
    size = -(-frame.height // tasks)
    pieces = []
    for start in range(0, frame.height, size):
        batches = frame.slice(start, size).to_arrow().to_batches(max_chunksize=7)
        for batch in gs.sample_batches(
            batches,
            groups=["model"],
            items=["question_id"],
            correct="correct",
            answer=answer,
            rows=11,
        ):
            pieces.append((batch.column(0)[0].as_py(), batch.column(1)[0].as_py()))
    return pieces


@pytest.mark.parametrize("tasks", [1, 3, 8])
def test_task_counts_summed_on_the_driver_give_the_whole_frame(tasks: int) -> None:
    frame = samples_frame()
    pieces = _tasks(frame, tasks, "answer")
    assert len(pieces) >= tasks  # several regrouped tables per task
    counts, votes = _arrow.summed_sample_counts(
        pieces, frame.clear(), ["model"], ["question_id"], "correct", "answer"
    )
    table = sample_rules.pass_at_k_from_counts(counts, ["model"], [1, 2, 5]).collect()
    expected = gf.pass_at_k(frame, [1, 2, 5])
    assert table.select("model", "k", "n_items", "short_items").equals(
        expected.select("model", "k", "n_items", "short_items")
    )
    assert (table["pass_at_k"] - expected["pass_at_k"]).abs().max() < 1e-15
    listed = sample_rules.flaky_from_counts(counts, votes, ["model"], ["question_id"]).collect()
    assert to_data(listed) == to_data(gf.flaky(frame, answer="answer"))


def test_task_votes_on_values_summed_on_the_driver_give_the_whole_frame() -> None:
    frame = samples_frame().with_columns(pl.col("answer").replace({"1000": "1e3"}))
    size = -(-frame.height // 3)
    pieces = []
    for start in range(0, frame.height, size):
        batches = frame.slice(start, size).to_arrow().to_batches(max_chunksize=7)
        for batch in gs.sample_batches(
            batches,
            groups=["model"],
            items=["question_id"],
            correct="correct",
            answer="answer",
            rows=11,
            vote="equivalent",
        ):
            pieces.append((batch.column(0)[0].as_py(), batch.column(1)[0].as_py()))
    counts, votes = _arrow.summed_sample_counts(
        pieces, frame.clear(), ["model"], ["question_id"], "correct", "answer", "equivalent"
    )
    listed = sample_rules.flaky_from_counts(counts, votes, ["model"], ["question_id"]).collect()
    assert to_data(listed) == to_data(gf.flaky(frame, answer="answer", vote="equivalent"))
    table = sample_rules.consistency_from_counts(counts, votes, ["model"], ["question_id"])
    whole = gf.consistency(frame, answer="answer", vote="equivalent")
    assert to_data(table.collect())["ties"] == whole["ties"].to_list()


def test_no_rows_gives_empty_counts() -> None:
    frame = samples_frame().clear()
    counts, votes = _arrow.summed_sample_counts(
        [], frame, ["model"], ["question_id"], "correct", "answer"
    )
    out = sample_rules.consistency_from_counts(counts, votes, ["model"], ["question_id"])
    assert out.collect().height == 0


# The whole path through Spark, where it is installed (required in .ci/run).
def _spark_installed() -> bool:
    if os.environ.get("GRADEFRAME_REQUIRE_SPARK"):
        return True
    has_java = shutil.which("java") is not None or bool(os.environ.get("JAVA_HOME"))
    return importlib.util.find_spec("pyspark") is not None and has_java


@pytest.mark.skipif(not _spark_installed(), reason="Spark needs pyspark and Java")
@pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas >= 3.0.0:FutureWarning"
)
def test_spark_samples_equal_the_polars_results(tmp_path) -> None:
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    session = (
        SparkSession.builder.master("local[2]")
        .appName("gradeframe-samples-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    try:
        frame = samples_frame()
        folder = tmp_path / "samples"
        folder.mkdir()
        for part in range(3):  # an item's samples sit in several files, so several tasks
            frame.slice(part * 100, 100 if part < 2 else None).write_parquet(
                folder / f"part.{part}.parquet"
            )
        sdf = session.read.parquet(str(folder))
        got = gs.pass_at_k(sdf, [1, 2, 5])
        want = gf.pass_at_k(frame, [1, 2, 5])
        assert to_data(got)["n_items"] == want["n_items"].to_list()
        assert to_data(got)["pass_at_k"] == pytest.approx(want["pass_at_k"].to_list(), abs=1e-15)
        assert to_data(gs.flaky(sdf, answer="answer")) == to_data(gf.flaky(frame, answer="answer"))
        by_value = gs.flaky(sdf, answer="answer", vote="equivalent")
        assert to_data(by_value) == to_data(gf.flaky(frame, answer="answer", vote="equivalent"))
        summary = gs.consistency(sdf, answer="answer")
        assert to_data(summary)["ties"] == gf.consistency(frame, answer="answer")["ties"].to_list()
        with pytest.raises(pl.exceptions.ColumnNotFoundError, match="on"):
            gs.pass_at_k(sdf, on="item")
    finally:
        session.stop()
