"""judge (SPEC §13): grading by a grader's verdict, the grader's failures apart from the model's."""

from __future__ import annotations

import os
import shutil
import sys

import polars as pl
import pytest

import gradeframe as gf
from tests.utils import assert_equal_data

JUDGE = [
    "Names Paris. GRADE: C",
    "GRADE: [I]",
    "GRADE: CI",
    None,
    "GRADE: P",
    "ＧＲＡＤＥ：Ｃ",
]


def test_judge_keeps_grader_failures_apart(constructor):
    frame = constructor({"judge": JUDGE})
    result = frame.grade.judge()
    assert_equal_data(
        result,
        {
            "correct": [True, False, False, False, False, True],
            "failure_kind": [None, "wrong", "grader_failure", "grader_failure", "wrong", None],
            "verdict": ["C", "I", None, None, "P", "C"],
            "score": [1.0, 0.0, None, None, 0.5, 1.0],
            "grader_failure": [None, None, "not_offered", "empty", None, None],
        },
    )


# (reply, status, judge text, correct, failure_kind): the model's own failure wins.
CHAIN = [
    ("Paris", "ok", "GRADE: C", True, None),
    ("Paris", "error", "GRADE: C", False, "error"),
    ("", None, "GRADE: C", False, "parse_failure"),
    ("", None, None, False, "parse_failure"),
    ("", "refused", "GRADE: C", False, "refusal"),
    ("Paris, I think", "refused", "GRADE: C", True, None),
    ("Paris", None, "no verdict here", False, "grader_failure"),
    ("Paris", "error", "no verdict here", False, "error"),
    ("Lyon", None, "GRADE: I", False, "wrong"),
]


def test_model_failure_comes_before_grader_failure(constructor):
    frame = constructor(
        {
            "reply": [c[0] for c in CHAIN],
            "status": [c[1] for c in CHAIN],
            "judge": [c[2] for c in CHAIN],
        }
    )
    result = frame.grade.judge(answer="reply")
    assert_equal_data(
        result,
        {"correct": [c[3] for c in CHAIN], "failure_kind": [c[4] for c in CHAIN]},
    )


def test_carried_kind_in_the_record_is_never_right():
    frame = pl.DataFrame(
        {
            "output": [{"answer": "Paris", "failure_kind": "timeout"}, {"answer": "Paris"}],
            "judge": ["GRADE: C", "GRADE: C"],
        }
    )
    result = gf.with_judge(frame, answer="output")
    assert result["failure_kind"].to_list() == ["timeout", None]
    assert result["correct"].to_list() == [False, True]


def test_yes_no_items_graded_against_expected_where_containment_finds_no(constructor):
    replies = ["Yes, there is no doubt.", "No.", "y", "Not sure", "Y\nNote: units omitted."]
    frame = constructor({"reply": replies, "expected": ["yes", "NO", "true", "no", "n"]})
    result = frame.grade.judge("reply", scheme="yes_no", expected="expected")
    assert_equal_data(
        result,
        {
            "correct": [True, True, True, False, False],
            "failure_kind": [None, None, None, "grader_failure", "wrong"],
            "verdict": ["yes", "no", "yes", None, "yes"],
        },
    )


def test_scale_needs_pass_score_and_passes_at_it(constructor):
    frame = constructor({"judge": ["[[4]]", "Rating: 3", "10/10"]})
    result = frame.grade.judge(scheme="scale", scale=(1, 5), pass_score=4)
    assert_equal_data(
        result,
        {
            "correct": [True, False, False],
            "failure_kind": [None, "wrong", "grader_failure"],
            "grader_failure": [None, None, "out_of_scale"],
        },
    )


def test_json_without_pass_key_needs_pass_score(constructor):
    texts = ['{"score": 0.8}', '{"pass": false, "score": 1}', '{"pass": tr']
    frame = constructor({"judge": texts})
    without = frame.grade.judge(scheme="json")
    assert_equal_data(
        without,
        {
            "correct": [False, False, False],
            "failure_kind": ["grader_failure", "wrong", "grader_failure"],
            "grader_failure": ["no_verdict", None, "truncated"],
        },
    )
    with_score = constructor({"judge": texts}).grade.judge(scheme="json", pass_score=0.5)
    assert_equal_data(with_score, {"correct": [True, False, False]})


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"scheme": "scale", "scale": (1, 5)}, ValueError, "`pass_score` is required"),
        ({"pass_score": 1}, ValueError, "`pass_score` applies to scheme='scale' and 'json'"),
        ({"scheme": "nope"}, ValueError, "`scheme` must be one of"),
        ({"text": "missing"}, pl.exceptions.ColumnNotFoundError, "`text='missing'`"),
    ],
)
def test_bad_arguments_raise_naming_them(constructor, options, error, message):
    frame = constructor({"judge": ["GRADE: C"]})
    with pytest.raises(error, match=message):
        frame.grade.judge(**options)


def test_prefix_and_no_overwrite(constructor):
    frame = constructor({"judge": ["GRADE: C"], "correct": [True]})
    with pytest.raises(ValueError, match="already has column"):
        frame.grade.judge()
    assert_equal_data(frame.grade.judge(prefix="j_"), {"j_correct": [True], "j_verdict": ["C"]})


def test_dask_gives_the_polars_rows():
    dd = pytest.importorskip("dask.dataframe")
    import gradeframe.dask  # noqa: F401

    frame = pl.DataFrame({"judge": JUDGE * 3, "reply": ["x", "", "y", "z", "w", "v"] * 3})
    expected = gf.with_judge(frame, answer="reply").to_pandas()
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=3)
    got = ddf.grade.judge(answer="reply").compute(scheduler="synchronous")
    for column in ("correct", "failure_kind", "verdict", "grader_failure"):
        assert got[column].tolist() == expected[column].tolist()


@pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas >= 3.0.0:FutureWarning"
)
@pytest.mark.skipif(
    os.environ.get("GRADEFRAME_REQUIRE_SPARK") is None is None and shutil.which("java") is None,
    reason="Spark needs Java",
)
def test_spark_gives_the_polars_rows():
    pytest.importorskip("pyspark")
    from pyspark.sql import SparkSession

    from gradeframe import spark as gs

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[1]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    frame = pl.DataFrame({"row_id": list(range(6)), "judge": JUDGE})
    rows = (
        gs.judge(session.createDataFrame(frame.to_arrow()), "judge")
        .orderBy("row_id")
        .select("correct", "failure_kind", "grader_failure")
        .collect()
    )
    expected = gf.with_judge(frame).select("correct", "failure_kind", "grader_failure")
    assert [tuple(r) for r in rows] == expected.rows()


def test_expected_yes_no_that_is_neither_raises_naming_the_row():
    frame = pl.DataFrame({"reply": ["Yes", "No"], "expected": ["yes", "maybe"]})
    with pytest.raises(ValueError, match="row 1 is 'maybe'"):
        gf.with_judge(frame, "reply", scheme="yes_no", expected="expected")
