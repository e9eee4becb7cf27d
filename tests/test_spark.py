"""gradeframe on Spark: the same rows and the same report as Polars (skipped without Spark/Java)."""

from __future__ import annotations

import os
import shutil
import sys

import polars as pl
import pyarrow as pa
import pytest

# .ci/run installs pyspark and Java and sets GRADEFRAME_REQUIRE_SPARK=1: there, a missing piece
# fails the run instead of skipping it.
if not os.environ.get("GRADEFRAME_REQUIRE_SPARK"):
    pytest.importorskip("pyspark")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java (java on PATH or JAVA_HOME)", allow_module_level=True)

from pyspark.sql import SparkSession

import gradeframe as gf
from gradeframe import spark as gs
from tests.utils import to_data

# PySpark 4.x warns on every Arrow call that it does not fully support pandas 3. This module
# never hands pandas to Spark; only that warning is silenced, nothing wider.
pytestmark = pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas >= 3.0.0:FutureWarning"
)

GRADED = ["correct", "failure_kind", "outcome"]


@pytest.fixture(scope="module")
def spark():
    """A local[2] session for the module (each xdist worker process starts its own)."""
    # docs/scale.md: the workers run the driver's Python (the venv that has gradeframe)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .appName("gradeframe-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def generated(rows: int, seed: int) -> pl.DataFrame:
    """The example's records (nested answers, list refs, carried kinds) resampled and shuffled."""
    example = gf.example()
    picks = pl.int_range(0, rows, eager=True).shuffle(seed=seed) % example.height
    return (
        example[picks.to_list()]
        .with_row_index("row_id")
        .with_columns(pl.col("row_id").cast(pl.Int64))
    )


def write_parts(frame: pl.DataFrame, folder, parts: int) -> str:
    folder.mkdir()
    size = -(-frame.height // parts)
    for part in range(parts):
        frame.slice(part * size, size).write_parquet(folder / f"part.{part}.parquet")
    return str(folder)


def collected(sdf, columns) -> dict[str, list]:
    rows = sdf.orderBy("row_id").select(*columns).collect()
    return {
        c: [r[c].asDict(recursive=True) if hasattr(r[c], "asDict") else r[c] for r in rows]
        for c in columns
    }


def test_example_gives_polars_rows_and_report(spark, tmp_path) -> None:
    frame = gf.example().with_row_index("row_id").with_columns(pl.col("row_id").cast(pl.Int64))
    expected = frame.grade.answer_contains("answer", "refs")
    sdf = spark.read.parquet(write_parts(frame, tmp_path / "runs", 3))
    graded = gs.answer_contains(sdf, "answer", "refs")
    columns = [*GRADED, "refs", "answer", "model"]
    assert collected(graded, columns) == to_data(expected.select(columns))
    for by in (None, "model"):
        assert to_data(gs.report(graded, by)) == to_data(gf.report(expected, by))


def test_generated_data_batches_regrouped_give_polars_rows_and_report(
    spark, tmp_path, monkeypatch
) -> None:
    # Spark hands over batches of 50 rows; they are regrouped into calls of at least 120.
    monkeypatch.setattr(gs, "ROWS_PER_CALL", 120)
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "50")
    try:
        frame = generated(1000, seed=7)
        expected = frame.grade.answer_contains("answer", "refs", prefix="g_")
        sdf = spark.read.parquet(write_parts(frame, tmp_path / "runs", 7))
        graded = gs.answer_contains(sdf, "answer", "refs", prefix="g_")
        columns = ["g_correct", "g_failure_kind", "g_outcome"]
        assert collected(graded, columns) == to_data(expected.select(columns))
        report = gs.report(graded, ["model", "question_id"], prefix="g_")
        want = gf.report(
            expected, ["model", "question_id"], correct="g_correct", failure_kind="g_failure_kind"
        )
        assert list(report.columns) == want.columns
        assert to_data(report) == to_data(want)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")


def test_matchers_give_polars_rows(spark) -> None:
    frame = pl.DataFrame(
        {
            "row_id": [0, 1, 2, 3, 4, 5, 6],
            "actual": ["12", "1,204", "12.05", None, "x", "3000", "Paris"],
            "expected": [12.0, 1204.0, 12.0, 5.0, 1.0, 3000.0, 0.0],
            "text": ["12", "1204", "12.0", "a", "x", "3,000", "paris"],
            "needles": [["12"], ["1204"], ["12"], [], ["x", "y"], ["3000"], ["Par"]],
        }
    )
    sdf = spark.createDataFrame(frame.to_arrow()).repartition(3)
    cases = [
        (
            gs.within,
            "within",
            ("actual", "expected"),
            {"percent": 1},
            ["correct", "tolerance", "difference"],
        ),
        (
            gs.includes,
            "includes",
            ("actual", "needles"),
            {"ignore_case": False},
            ["correct", "missing"],
        ),
        (
            gs.exact_match,
            "exact_match",
            ("actual", "text"),
            {"strip": False},
            ["correct", "expectation"],
        ),
        (gs.matches, "matches", ("actual",), {"pattern": r"^\d"}, ["correct", "expectation"]),
    ]
    for function, method, args, kwargs, columns in cases:
        expected = getattr(frame.grade, method)(*args, **kwargs)
        assert collected(function(sdf, *args, **kwargs), columns) == to_data(
            expected.select(columns)
        )


def test_report_cluster_and_score_from_summed_counts(spark, tmp_path) -> None:
    # Scores in eighths add up exactly in any order, so the comparison can be exact.
    frame = (
        generated(840, seed=5)
        .grade.answer_contains("answer", "refs")
        .with_columns(score=(pl.col("row_id") % 9).cast(pl.Float64) / 8)
    )
    sdf = spark.read.parquet(write_parts(frame, tmp_path / "graded", 3))
    for by in (None, "model"):
        result = gs.report(sdf, by, cluster="question_id", score="score")
        expected = gf.report(frame, by, cluster="question_id", score="score")
        assert list(result.columns) == expected.columns
        assert to_data(result) == to_data(expected)


def test_arguments_are_checked_before_any_data_is_read(spark) -> None:
    schema = gf.example().to_arrow().schema

    def never(_batches):
        raise AssertionError("a partition was read")
        yield  # pragma: no cover

    from pyspark.sql.pandas.types import from_arrow_schema

    sdf = spark.range(4).mapInArrow(never, from_arrow_schema(schema))
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="nope"):
        gs.answer_contains(sdf, "nope", "refs")
    with pytest.raises(ValueError, match="delta"):
        gs.within(sdf, "answer", "refs")
    with pytest.raises(Exception, match="no_such_column"):
        gs.report(gs.answer_contains(sdf, "answer", "refs"), "no_such_column")
    assert gs.answer_contains(sdf, "answer", "refs").columns[-3:] == GRADED


def test_regrouped_keeps_every_row_in_order() -> None:
    batches = [
        pa.record_batch({"x": list(range(start, start + n))})
        for start, n in ((0, 4), (4, 0), (4, 7), (11, 2))
    ]
    tables = list(gs.regrouped(batches, rows=5))
    assert [t.num_rows for t in tables] == [11, 2]
    assert pa.concat_tables(tables).column("x").to_pylist() == list(range(13))


def test_workers_import_the_drivers_gradeframe_the_documented_way(spark):
    """docs/scale.md, "gradeframe on Spark's workers": with PYSPARK_PYTHON set to the driver's
    Python, every worker runs that Python and imports the very gradeframe the driver does."""

    def where(batches):
        import sys

        import gradeframe

        for batch in batches:
            yield pa.RecordBatch.from_pydict(
                {
                    "python": [sys.executable] * batch.num_rows,
                    "gradeframe": [gradeframe.__file__] * batch.num_rows,
                }
            )

    rows = (
        spark.range(0, 8, numPartitions=2)
        .mapInArrow(where, "python string, gradeframe string")
        .distinct()
        .collect()
    )
    assert {(row.python, row.gradeframe) for row in rows} == {(sys.executable, gf.__file__)}


def test_csv_mixing_json_list_and_plain_refs_gives_the_polars_verdicts(spark, tmp_path) -> None:
    # A user's CSV read by Spark as text: JSON-list cells are lists, other cells one answer.
    from tests.test_user_path import USER_CSV, USER_VERDICTS

    path = tmp_path / "answers.csv"
    path.write_text(USER_CSV, encoding="utf-8")
    frame = pl.read_csv(path, infer_schema=False).with_row_index("row_id")
    frame = frame.with_columns(pl.col("row_id").cast(pl.Int64))
    sdf = spark.read.parquet(write_parts(frame, tmp_path / "runs", 3))
    graded = gs.answer_contains(sdf, explain=True)
    assert graded.columns[-2:] == ["matched", "near_miss"]
    columns = ["correct", "failure_kind", "matched", "near_miss"]
    result = collected(graded, columns)
    assert result["correct"] == USER_VERDICTS["correct"]
    assert result == to_data(frame.grade.answer_contains(explain=True).select(columns))


def test_equivalent_gives_polars_rows(spark) -> None:
    frame = pl.DataFrame(
        {
            "row_id": [0, 1, 2, 3, 4, 5, 6],
            "actual": ["1/2", "$1,000$", "50\\%", None, "\\sqrt{4}", "x", "0.4999999"],
            "expected": ["0.5", "1000", "0.5", "1", "2", "y", "\\frac12"],
        }
    )
    sdf = spark.createDataFrame(frame.to_arrow()).repartition(3)
    columns = ["correct", "expectation", "method"]
    for kwargs in ({"fallback": None}, {"percent": "number"}):
        expected = frame.grade.equivalent("actual", "expected", **kwargs)
        got = collected(gs.equivalent(sdf, "actual", "expected", **kwargs), columns)
        assert got == to_data(expected.select(columns))


def test_whole_words_and_refusal_pass_through(spark) -> None:
    frame = pl.DataFrame(
        {
            "row_id": [0, 1, 2],
            "answer": ["I live in Ukraine.", "The UK.", "I'm sorry, but I can't help with that."],
            "refs": ["UK", "UK", "Paris"],
        }
    )
    expected = frame.grade.answer_contains(whole_words=True, refusal=True)
    sdf = spark.createDataFrame(frame.to_pandas())
    graded = gs.answer_contains(sdf, "answer", "refs", whole_words=True, refusal=True)
    assert collected(graded, GRADED) == to_data(expected.select(GRADED))
    assert to_data(expected)["failure_kind"] == ["wrong", None, "refusal"]


def test_report_cost_columns_from_summed_counts(spark, tmp_path) -> None:
    # The cost columns are sums (the percentiles are not, and Spark's report leaves them out).
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
    sdf = spark.read.parquet(write_parts(frame, tmp_path / "costed", 3))
    result = gs.report(sdf, "model", cost=prices)
    expected = gf.report(frame, "model", cost=prices).drop("seconds_p50", "seconds_p95")
    assert list(result.columns) == expected.columns
    got, want = to_data(result), to_data(expected)
    for column in expected.columns:
        if expected[column].dtype == pl.Float64:
            nulls = [v is None for v in want[column]]
            assert [v is None for v in got[column]] == nulls, column
            kept = [(g, w) for g, w in zip(got[column], want[column], strict=True) if w is not None]
            assert [g for g, _ in kept] == pytest.approx([w for _, w in kept], rel=1e-12), column
        else:
            assert got[column] == want[column], column
    assert any(c is None for c in got["cost"]), "one model's cost is unknown"
    assert any(c is not None for c in got["cost"]), "the others' is known"


def test_choice_with_one_option_letter_gives_polars_rows(spark) -> None:
    frame = pl.DataFrame(
        {"row_id": [0, 1, 2, 3], "answer": ["A", "B", "(a)", None], "key": ["A", "A", "A", "A"]}
    )
    sdf = spark.createDataFrame(frame.to_arrow()).repartition(2)
    expected = frame.grade.choice("answer", "key", letters="A")
    columns = ["correct", "chosen"]
    assert collected(gs.choice(sdf, "answer", "key", letters="A"), columns) == to_data(
        expected.select(columns)
    )
