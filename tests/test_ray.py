"""gradeframe on Ray: the same rows and the same report as Polars (skipped without ray).

The tests share one local Ray cluster of two worker processes (``ray.init(num_cpus=2)``), started
once per test process. .ci/run installs ``gradeframe[ray]`` and sets GRADEFRAME_REQUIRE_RAY=1:
there, a missing ray fails the run instead of skipping it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from typing import Any

import polars as pl
import pyarrow as pa
import pytest

import gradeframe as gf
from tests.test_samples_dask import samples_frame
from tests.utils import to_data

GRADED = ["correct", "failure_kind", "outcome"]

# Ray Data's DataContext warns about its own deprecated settings when it is first made (it sets
# every field); those warnings are Ray's, not gradeframe's: only they are silenced.
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")

RAY_MISSING = importlib.util.find_spec("ray") is None and not os.environ.get(
    "GRADEFRAME_REQUIRE_RAY"
)


def test_import_gradeframe_does_not_import_ray() -> None:
    code = (
        "import sys, gradeframe, gradeframe.rewards\n"
        "print([m for m in ('ray', 'ray.data') if m in sys.modules])\n"
        "import gradeframe.ray\n"
        "print([m for m in ('ray', 'ray.data') if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["[]", "[]"]


def test_ray_has_every_function_spark_has() -> None:
    # One kernel for both engines: a grading function added to gradeframe.spark (judge,
    # tool_calls, ...) is one `_grading("name")` line in gradeframe.ray too.
    from gradeframe import ray as gradeframe_ray
    from gradeframe import spark as gradeframe_spark

    missing = sorted(set(gradeframe_spark.__all__) - set(gradeframe_ray.__all__))
    assert missing == [], f"gradeframe.ray lacks {missing}: add `name = _grading('name')`"
    assert gradeframe_ray.__all__ == sorted(gradeframe_ray.__all__)


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster with two worker processes, for the module."""
    if RAY_MISSING:
        pytest.skip("ray is not installed (pip install 'gradeframe[ray]')")
    import ray
    from ray.data import DataContext

    started = not ray.is_initialized()
    if started:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    context = DataContext.get_current()
    context.enable_progress_bars = False
    yield ray
    if started:
        ray.shutdown()


@pytest.fixture
def gr(cluster):
    from gradeframe import ray as gradeframe_ray

    return gradeframe_ray


def dataset(cluster, frame: pl.DataFrame, parts: int):
    """The frame as a Dataset of ``parts`` blocks."""
    size = -(-frame.height // parts)
    tables = [frame.slice(i * size, size).to_arrow() for i in range(parts)]
    return cluster.data.from_arrow([t for t in tables if t.num_rows])


def collected(cluster, ds, columns: list[str]) -> dict[str, list[Any]]:
    tables = cluster.get(ds.to_arrow_refs())
    frame = pl.from_arrow(pa.concat_tables(tables)).sort("row_id")
    return to_data(frame.select(columns))


def generated(rows: int, seed: int) -> pl.DataFrame:
    """The example's records (nested answers, list refs, carried kinds) resampled and shuffled."""
    example = gf.example()
    picks = pl.int_range(0, rows, eager=True).shuffle(seed=seed) % example.height
    return (
        example[picks.to_list()]
        .with_row_index("row_id")
        .with_columns(pl.col("row_id").cast(pl.Int64))
    )


def test_example_gives_polars_rows_and_report(cluster, gr) -> None:
    frame = gf.example().with_row_index("row_id").with_columns(pl.col("row_id").cast(pl.Int64))
    expected = frame.grade.answer_contains("answer", "refs")
    graded = gr.answer_contains(dataset(cluster, frame, 3), "answer", "refs")
    columns = [*GRADED, "refs", "answer", "model"]
    assert collected(cluster, graded, columns) == to_data(expected.select(columns))
    for by in (None, "model"):
        assert to_data(gr.report(graded, by)) == to_data(gf.report(expected, by))


def test_many_small_batches_give_polars_rows_and_report(cluster, gr, monkeypatch) -> None:
    # batches of at most 120 rows: the report sums the counts of about ten batches
    monkeypatch.setattr(gr, "ROWS_PER_CALL", 120)
    frame = generated(1000, seed=7)
    expected = frame.grade.answer_contains("answer", "refs", prefix="g_")
    graded = gr.answer_contains(dataset(cluster, frame, 7), "answer", "refs", prefix="g_")
    columns = ["g_correct", "g_failure_kind", "g_outcome"]
    assert collected(cluster, graded, columns) == to_data(expected.select(columns))
    report = gr.report(graded, ["model", "question_id"], prefix="g_")
    want = gf.report(
        expected, ["model", "question_id"], correct="g_correct", failure_kind="g_failure_kind"
    )
    assert list(report.columns) == want.columns
    assert to_data(report) == to_data(want)


def test_matchers_and_equivalent_give_polars_rows(cluster, gr) -> None:
    frame = pl.DataFrame(
        {
            "row_id": [0, 1, 2, 3, 4, 5, 6],
            "actual": ["12", "1,204", "12.05", None, "x", "3000", "Paris"],
            "expected": [12.0, 1204.0, 12.0, 5.0, 1.0, 3000.0, 0.0],
            "text": ["12", "1204", "12.0", "a", "x", "3,000", "paris"],
            "needles": [["12"], ["1204"], ["12"], [], ["x", "y"], ["3000"], ["Par"]],
            "reply": ["B", "(C) Paris", "A and C", "Don't know", None, "ANSWER: D", "b"],
            "letters": ["B", "C", "AC", "A", "A", "D", "B"],
            "math": ["1/2", "$1,000$", "50\\%", None, "\\sqrt{4}", "x", "0.4999999"],
            "gold": ["0.5", "1000", "0.5", "1", "2", "y", "\\frac12"],
        }
    )
    ds = dataset(cluster, frame, 3)
    cases = [
        ("within", ("actual", "expected"), {"percent": 1}, ["correct", "tolerance", "difference"]),
        ("includes", ("actual", "needles"), {"ignore_case": False}, ["correct", "missing"]),
        ("exact_match", ("actual", "text"), {"strip": False}, ["correct", "expectation"]),
        ("matches", ("actual",), {"pattern": r"^\d"}, ["correct", "expectation"]),
        ("choice", ("reply", "letters"), {}, ["correct", "chosen"]),
        ("f1", ("actual", "text"), {"threshold": 0.5}, ["correct", "f1"]),
        ("equivalent", ("math", "gold"), {"fallback": None}, ["correct", "method"]),
        ("equivalent", ("math", "gold"), {"percent": "number"}, ["correct", "method"]),
    ]
    for method, args, kwargs, columns in cases:
        expected = getattr(frame.grade, method)(*args, **kwargs)
        got = collected(cluster, getattr(gr, method)(ds, *args, **kwargs), ["row_id", *columns])
        assert got == to_data(expected.select(["row_id", *columns])), method


def test_judge_and_tool_calls_give_polars_rows(cluster, gr) -> None:
    from tests.test_judge import JUDGE
    from tests.test_tool_calls import ENGINE_COLUMNS, ENGINE_FRAME

    judged = pl.DataFrame({"row_id": list(range(len(JUDGE))), "judge": JUDGE})
    columns = ["row_id", "correct", "failure_kind", "verdict", "score", "grader_failure"]
    got = collected(cluster, gr.judge(dataset(cluster, judged, 2), "judge"), columns)
    assert got == to_data(judged.grade.judge("judge").select(columns))
    calls = pl.DataFrame(ENGINE_FRAME)
    got = collected(
        cluster,
        gr.tool_calls(dataset(cluster, calls, 2), mode="exact"),
        ["row_id", *ENGINE_COLUMNS],
    )
    assert got == to_data(calls.grade.tool_calls(mode="exact").select(["row_id", *ENGINE_COLUMNS]))


def test_report_cost_columns_from_summed_counts(cluster, gr, monkeypatch) -> None:
    # The cost columns are sums (the seconds percentiles are not: the report leaves them out).
    monkeypatch.setattr(gr, "ROWS_PER_CALL", 50)
    frame = (
        generated(300, seed=7)
        .grade.answer_contains("answer", "refs")
        .with_columns(
            input_tokens=pl.when(pl.col("row_id") != 0).then(pl.col("row_id") % 13 * 100),
            output_tokens=pl.col("row_id") % 7 * 10,
            seconds=(pl.col("row_id") % 11).cast(pl.Float64),
        )
    )
    models = frame["model"].unique().drop_nulls().to_list()
    prices = {m: {"input": 1.0 + i, "output": 4.0} for i, m in enumerate(sorted(models))}
    result = gr.report(dataset(cluster, frame, 3), "model", cost=prices)
    expected = gf.report(frame, "model", cost=prices).drop("seconds_p50", "seconds_p95")
    assert list(result.columns) == expected.columns
    got, want = to_data(result), to_data(expected)
    for column in expected.columns:
        if expected[column].dtype == pl.Float64:
            assert [v is None for v in got[column]] == [v is None for v in want[column]], column
            kept = [(g, w) for g, w in zip(got[column], want[column], strict=True) if w is not None]
            assert [g for g, _ in kept] == pytest.approx([w for _, w in kept], rel=1e-12), column
        else:
            assert got[column] == want[column], column


def test_input_columns_keep_their_arrow_types(cluster, gr) -> None:
    table = pa.table(
        {
            "row_id": pa.array([0, 1], pa.int32()),
            "answer": pa.array(["It was 1987.", None], pa.string()),
            "refs": pa.array([["1987"], ["12"]], pa.list_(pa.string())),
        }
    )
    graded = gr.answer_contains(cluster.data.from_arrow(table), "answer", "refs")
    schema = graded.schema().base_schema
    assert [schema.field(n).type for n in table.schema.names] == list(table.schema.types)
    assert schema.names == [*table.schema.names, *GRADED]


def test_report_cluster_and_score_from_summed_counts(cluster, gr, monkeypatch) -> None:
    # Scores in eighths add up exactly in any order, so the comparison can be exact.
    monkeypatch.setattr(gr, "ROWS_PER_CALL", 200)
    frame = (
        generated(840, seed=5)
        .grade.answer_contains("answer", "refs")
        .with_columns(score=(pl.col("row_id") % 9).cast(pl.Float64) / 8)
    )
    ds = dataset(cluster, frame, 3)
    for by in (None, "model"):
        result = gr.report(ds, by, cluster="question_id", score="score")
        expected = gf.report(frame, by, cluster="question_id", score="score")
        assert list(result.columns) == expected.columns
        assert to_data(result) == to_data(expected)


def test_samples_from_summed_per_item_counts(cluster, gr, monkeypatch) -> None:
    monkeypatch.setattr(gr, "ROWS_PER_CALL", 40)  # an item's samples sit in several batches
    frame = samples_frame()
    ds = dataset(cluster, frame, 3)
    got = to_data(gr.pass_at_k(ds, [1, 2, 5]))
    want = gf.pass_at_k(frame, [1, 2, 5])
    assert got["n_items"] == want["n_items"].to_list()
    assert got["pass_at_k"] == pytest.approx(want["pass_at_k"].to_list(), abs=1e-15)
    assert to_data(gr.flaky(ds, answer="answer")) == to_data(gf.flaky(frame, answer="answer"))
    summary = to_data(gr.consistency(ds, answer="answer"))
    assert summary["ties"] == gf.consistency(frame, answer="answer")["ties"].to_list()
    for vote in ("fold", "equivalent"):
        got = to_data(gr.flaky(ds, answer="answer", vote=vote))
        assert got == to_data(gf.flaky(frame, answer="answer", vote=vote)), vote


def test_arguments_are_checked_when_the_call_is_made(cluster, gr) -> None:
    ds = cluster.data.from_arrow(gf.example().to_arrow())
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="nope"):
        gr.answer_contains(ds, "nope", "refs")
    with pytest.raises(ValueError, match="delta"):
        gr.within(ds, "answer", "refs")
    with pytest.raises(Exception, match="no_such_column"):
        gr.report(gr.answer_contains(ds, "answer", "refs"), "no_such_column")
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="on"):
        gr.pass_at_k(ds, on="item")
