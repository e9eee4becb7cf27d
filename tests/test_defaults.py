"""SPEC v3 §2 "Defaults that follow the data", and compare's `verdict` (§4), on every frame type."""

from __future__ import annotations

from typing import Any

import polars as pl
import pytest

import gradeframe as gf
from tests.utils import assert_equal_data, to_data

UNGRADED: dict[str, list[Any]] = {
    "model": ["a", "b"],
    "question_id": ["q1", "q1"],
    "response": ["It is 12.", "13"],
    "gold": ["12", "12"],
}


@pytest.mark.parametrize("summary", ["report", "failures", "compare"])
def test_a_summary_of_an_ungraded_frame_says_to_grade_it_first(
    constructor: Any, summary: str
) -> None:
    frame = constructor(UNGRADED)
    with pytest.raises(ValueError, match=r"Grade the frame first: df\.grade\.answer_contains"):
        getattr(frame.grade, summary)()
    # Still a ColumnNotFoundError, as every missing column is.
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`correct='correct'`"):
        getattr(gf, summary)(frame)


def test_report_names_a_misspelt_verdict_column_and_the_close_one(constructor: Any) -> None:
    frame = constructor({"is_right": [True, False]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="Grade the frame first"):
        frame.grade.report(correct="is_rigth")


def test_failures_with_missing_default_columns_says_which_to_pass(constructor: Any) -> None:
    graded = constructor(UNGRADED).grade.answer_contains("response", "gold")
    with pytest.raises(ValueError, match=r"actual='answer'.*failures\(actual=\.\.\., expected"):
        graded.grade.failures()
    out = graded.grade.failures(actual="response", expected="gold")
    assert_equal_data(out, {"actual": ["13"], "expected": ["12"]})


ITEMS: dict[str, list[Any]] = {
    "model": ["x", "x", "y", "y"],
    "correct": [True, False, True, True],
}


@pytest.mark.parametrize(
    ("columns", "expected_items"),
    [
        pytest.param(
            {"question_id": ["q1", "q2", "q1", "q2"], "task": ["t"] * 4, "sample_id": [1, 1, 1, 1]},
            2,
            id="question_id_wins_over_task_and_sample_id",
        ),
        pytest.param(
            {"task": ["t1", "t2", "t1", "t2"], "sample_id": [1, 1, 1, 1]},
            2,
            id="log_frames_sample_ids_repeat_across_tasks",
        ),
        pytest.param({"sample_id": [1, 2, 1, 2]}, 2, id="sample_id_alone"),
    ],
)
def test_compare_on_none_follows_the_data(
    constructor: Any, columns: dict[str, list[Any]], expected_items: int
) -> None:
    out = constructor({**ITEMS, **columns}).grade.compare()
    assert_equal_data(out, {"a": ["x"], "b": ["y"], "n_items": [expected_items]})


def test_compare_on_none_without_item_columns_names_the_choices(constructor: Any) -> None:
    with pytest.raises(ValueError, match=r"question_id.*task.*sample_id.*on="):
        constructor(ITEMS).grade.compare()


def test_compare_on_none_on_a_real_log_frame_pairs_task_and_sample_id() -> None:
    graded = gf.read_log("tests/fixtures/logs/inspect", tool="inspect").grade.answer_contains(
        "output", "refs"
    )
    by_hand = gf.compare(graded, "model", ["task", "sample_id"])
    assert gf.compare(graded, "model").equals(by_hand)


def _verdict_frame(a: list[bool], b: list[bool]) -> dict[str, list[Any]]:
    n = len(a)
    return {
        "model": ["a"] * n + ["b"] * n,
        "question_id": [f"q{i}" for i in range(n)] * 2,
        "correct": a + b,
    }


@pytest.mark.parametrize(
    ("a", "b", "verdict"),
    [
        pytest.param([False] * 30, [True] * 30, "b better", id="interval_above_zero_b_better"),
        pytest.param([True] * 30, [False] * 30, "a better", id="interval_below_zero_a_better"),
        pytest.param([True, False] * 15, [False, True] * 15, "not settled", id="holds_zero"),
        pytest.param([True], [False], "not settled", id="one_item_has_no_interval"),
        pytest.param([True] * 30, [True] * 30, "not settled", id="zero_width_interval_at_zero"),
    ],
)
def test_compare_verdict_in_words(
    constructor: Any, a: list[bool], b: list[bool], verdict: str
) -> None:
    out = to_data(constructor(_verdict_frame(a, b)).grade.compare())
    assert out["verdict"] == [verdict]
    low, high = out["ci_low"][0], out["ci_high"][0]
    if verdict == "b better":
        assert low > 0
    elif verdict == "a better":
        assert high < 0
    else:
        assert low is None or low <= 0 <= high


def test_compare_verdict_is_the_last_column() -> None:
    out = gf.compare(pl.DataFrame(_verdict_frame([True, False], [True, True])))
    assert out.columns[-1] == "verdict"
    assert out.schema["verdict"] == pl.String
