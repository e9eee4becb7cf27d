"""Reports keep the grader's failures out of the accuracy (SPEC §4 v4, §13); agreement's n_missing."""

from __future__ import annotations

import polars as pl
import pytest

import gradeframe as gf
from gradeframe.stats import wilson_interval
from tests.utils import to_data

# Question 3's two rows are both grader failures: no cluster of graded rows.
ROWS = {
    "model": ["a"] * 6,
    "q": [1, 1, 2, 2, 3, 3],
    "judge": ["GRADE: C", "GRADE: I", "GRADE: C", "no verdict", "GRADE: CI", None],
}


def graded(constructor):
    return constructor(ROWS).grade.judge()


def test_grader_failures_counted_and_left_out_of_the_accuracy(constructor):
    report = to_data(graded(constructor).grade.report(by="model"))
    assert report["n"] == [6]
    assert report["n_graded"] == [3]
    assert report["grader_failure"] == [3]
    assert report["wrong"] == [1]
    assert report["accuracy"] == [pytest.approx(2 / 3)]
    low, high = pl.select(*wilson_interval(pl.lit(2), pl.lit(3))).row(0)
    assert report["ci_low"] == [pytest.approx(low)]
    assert report["ci_high"] == [pytest.approx(high)]


def test_grader_failure_column_stands_right_after_wrong():
    report = gf.report(gf.with_judge(pl.DataFrame(ROWS)), "model")
    columns = report.columns
    assert columns.index("grader_failure") == columns.index("wrong") + 1
    assert columns.index("n_graded") == columns.index("n") + 1


def test_frame_without_grader_failures_has_no_such_columns():
    frame = gf.with_judge(pl.DataFrame({"judge": ["GRADE: C", "GRADE: I"]}))
    report = gf.report(frame)
    assert "grader_failure" not in report.columns
    assert "n_graded" not in report.columns
    assert report["accuracy"].to_list() == [0.5]


def test_n_clusters_counts_clusters_of_graded_rows():
    report = gf.report(gf.with_judge(pl.DataFrame(ROWS)), "model", cluster="q")
    assert report["n_clusters"].to_list() == [2]
    assert report["accuracy"].to_list() == [pytest.approx(2 / 3)]


def test_score_statistics_leave_the_grader_failures_out():
    # The second row's object has a score but no pass key and no pass_score: the grader failed
    # (no_verdict); its score is the grader's and stays out of mean_score.
    frame = pl.DataFrame(
        {"judge": ['{"pass": true, "score": 1}', '{"score": 0.2}', '{"pass": false, "score": 0}']}
    )
    graded_frame = gf.with_judge(frame, scheme="json")
    assert graded_frame["failure_kind"].to_list() == [None, "grader_failure", "wrong"]
    report = gf.report(graded_frame, score="score")
    assert report["mean_score"].to_list() == [pytest.approx(0.5)]
    assert report["accuracy"].to_list() == [pytest.approx(0.5)]


def test_counts_summed_from_partitions_give_the_same_report():
    frame = gf.with_judge(pl.DataFrame(ROWS))
    parts = [gf.report_counts(frame.slice(i, 2), "model") for i in (0, 2, 4)]
    from_parts = gf.report_from_counts(pl.concat(parts, how="diagonal"), "model")
    assert from_parts.to_dicts() == gf.report(frame, "model").to_dicts()


def test_agreement_leaves_out_rows_where_either_verdict_is_null(constructor):
    frame = constructor(
        {
            "tool_correct": [True, None, False, True, None],
            "correct": [True, True, False, None, None],
        }
    )
    result = to_data(gf.agreement(frame, "tool_correct", "correct"))
    assert result["n"] == [2]
    assert result["n_missing"] == [3]
    assert result["agreement"] == [1.0]


def test_chart_tells_the_graders_failures_from_the_models():
    pytest.importorskip("altair")
    frame = gf.with_judge(pl.DataFrame(ROWS))
    spec = gf.chart(frame, "model").to_dict()
    bars = spec["hconcat"][0]
    values = bars["data"]["values"] if "data" in bars else spec["datasets"]
    failed = {row["failure_kind"]: row["failed"] for row in values}
    assert failed == {"wrong": "model", "grader_failure": "grader"}
    assert "n_graded" not in failed


def test_html_page_counts_grader_failures_apart():
    pytest.importorskip("jinja2")
    page = gf.html_report(gf.with_judge(pl.DataFrame(ROWS)), by="model")
    assert "2 of 3 graded rows right" in page
    assert '<dd id="summary-grader-failure">3 ' in page
    assert '<dd id="summary-grader"><code>judge</code>' in page
    assert 'data-col="n_graded"' not in page
