"""Rubrics (SPEC §13): HealthBench's arithmetic against a hand computation, grader failures."""

from __future__ import annotations

import math
import statistics

import polars as pl
import pytest

import gradeframe as gf
from tests.utils import assert_equal_data

RUBRIC = [
    {"criterion": "names the drug", "points": 5.0, "tags": ["accuracy"]},
    {"criterion": "gives the dose", "points": 3.0, "tags": ["completeness", "accuracy"]},
    {"criterion": "says to skip the doctor", "points": -4.0, "tags": ["safety"]},
]
# Positive points: 5 + 3 = 8, the denominator of every row.
FLAGS = [
    ([True, True, False], 8 / 8, 2, None),
    ([True, False, True], (5 - 4) / 8, 2, None),
    ([False, False, True], -4 / 8, 1, None),
    ([True], None, None, "missing_criterion"),
    ([True, True, False, True], None, None, "extra_criterion"),
    (None, None, None, "empty"),
    ([], None, None, "missing_criterion"),
]


def test_rubric_score_is_met_points_over_positive_points(constructor):
    frame = constructor({"rubric": [RUBRIC] * len(FLAGS), "met": [row[0] for row in FLAGS]})
    result = frame.grade.rubric()
    assert_equal_data(
        result,
        {
            "rubric_score": [row[1] for row in FLAGS],
            "criteria_met": [row[2] for row in FLAGS],
            "grader_failure": [row[3] for row in FLAGS],
            "failure_kind": [None if row[3] is None else "grader_failure" for row in FLAGS],
        },
    )


def named(*pairs):
    return [
        {"criterion": RUBRIC[i]["criterion"] if isinstance(i, int) else i, "met": m}
        for i, m in pairs
    ]


NAMED = [
    (named((1, True), (0, True), (2, False)), 1.0, 2, None),
    (named((0, True), (0, False), (1, True), (2, False)), None, None, "duplicate_criterion"),
    (named((0, True), ("made up", True), (1, True)), None, None, "extra_criterion"),
    (named((0, True), (1, True)), None, None, "missing_criterion"),
    (named((2, True), (1, False), (0, False)), -4 / 8, 1, None),
]


def test_verdicts_by_name_match_the_declared_criteria(constructor):
    frame = constructor({"rubric": [RUBRIC] * len(NAMED), "met": [row[0] for row in NAMED]})
    result = frame.grade.rubric(prefix="r_")
    assert_equal_data(
        result,
        {
            "r_rubric_score": [row[1] for row in NAMED],
            "r_criteria_met": [row[2] for row in NAMED],
            "r_grader_failure": [row[3] for row in NAMED],
        },
    )


def test_no_positive_points_gives_a_null_score():
    rubric = [{"criterion": "harm", "points": -2.0}]
    result = gf.with_rubric(pl.DataFrame({"rubric": [rubric], "met": [[True]]}))
    assert result["rubric_score"].to_list() == [None]
    assert result["grader_failure"].to_list() == [None]


def test_met_of_another_dtype_raises_naming_it():
    frame = pl.DataFrame({"rubric": [RUBRIC], "met": ["yes"]})
    with pytest.raises(TypeError, match="`met`"):
        gf.with_rubric(frame)


def _interval(scores):
    mean = sum(scores) / len(scores)
    half = 1.959964 * statistics.stdev(scores) / math.sqrt(len(scores))
    clip = lambda x: min(1.0, max(0.0, x))  # noqa: E731
    return clip(mean), clip(mean - half), clip(mean + half)


def test_report_leaves_grader_failures_out_and_clips():
    frame = gf.with_rubric(
        pl.DataFrame({"rubric": [RUBRIC] * len(FLAGS), "met": [row[0] for row in FLAGS]})
    )
    report = gf.rubric_report(frame)
    mean, low, high = _interval([1.0, 0.125, -0.5])
    assert report.select("n", "n_graded", "grader_failure").row(0) == (7, 3, 4)
    assert report["mean_score"][0] == pytest.approx(mean)
    assert report["score_ci_low"][0] == pytest.approx(low)
    assert report["score_ci_high"][0] == pytest.approx(high)


def test_report_per_tag_counts_each_criterion_under_each_tag():
    frame = gf.with_rubric(
        pl.DataFrame(
            {
                "model": ["m"] * len(FLAGS),
                "rubric": [RUBRIC] * len(FLAGS),
                "met": [row[0] for row in FLAGS],
            }
        )
    )
    report = gf.rubric_report(frame, by="model", tags=True)
    # accuracy: a (5) and b (3) over 8; completeness: b (3) over 3; safety has no positive
    # points, so no row has a score for it.
    assert report["tag"].to_list() == ["accuracy", "completeness"]
    accuracy = _interval([8 / 8, 5 / 8, 0 / 8])
    completeness = _interval([3 / 3, 0 / 3, 0 / 3])
    for row, expected in zip(report.iter_rows(named=True), (accuracy, completeness), strict=True):
        assert (row["n"], row["n_graded"], row["grader_failure"]) == (7, 3, 4)
        got = (row["mean_score"], row["score_ci_low"], row["score_ci_high"])
        assert got == pytest.approx(expected)


def test_report_groups_are_sorted_and_take_pandas():
    frame = gf.with_rubric(
        pl.DataFrame(
            {
                "model": ["b", "a", "b"],
                "rubric": [RUBRIC] * 3,
                "met": [[True, True, False], [True, False, False], None],
            }
        )
    )
    report = gf.rubric_report(frame.to_pandas(), by="model")
    assert report["model"].to_list() == ["a", "b"]
    assert report["grader_failure"].to_list() == [0, 1]
    assert report["mean_score"].to_list() == pytest.approx([5 / 8, 1.0])
    assert type(report).__module__.startswith("pandas")
