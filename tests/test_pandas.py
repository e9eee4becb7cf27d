"""The pandas accessor: the same answers as Polars, index and dtypes kept, nothing mutated."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from tests.utils import to_data

ANSWERS = ["Sheffield produced 12,400 units.", "The mast is 145.2 m", None, "NOT_IN_DOCUMENT"]
REFS = [["12400"], ["45.2"], ["7"], ["NOT_IN_DOCUMENT"]]
EXPECTED_CORRECT = [True, False, False, True]
EXPECTED_KIND = [None, "wrong", "parse_failure", None]

INDEXES = {
    "range": pd.RangeIndex(4),
    "range_from_10_step_3": pd.RangeIndex(10, 22, 3),
    "labels": pd.Index(["d", "c", "b", "a"]),
    "duplicate_labels": pd.Index(["x", "x", "y", "x"]),
    "multi": pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1), ("b", 2)], names=["m", "q"]),
    "datetime": pd.date_range("2026-01-01", periods=4),
}


@pytest.mark.parametrize("index", INDEXES.values(), ids=INDEXES.keys())
def test_index_columns_and_caller_frame_are_kept(index: pd.Index) -> None:
    frame = pd.DataFrame(
        {"z_first": [1, 2, 3, 4], "answer": ANSWERS, "refs": REFS, "extra": list("wxyz")},
        index=index,
    )
    before = frame.copy(deep=True)
    out = frame.grade.answer_contains()
    assert out.index.equals(frame.index)
    assert list(out.columns) == [*frame.columns, "correct", "failure_kind", "outcome"]
    pd.testing.assert_frame_equal(frame, before)  # the caller's frame is unchanged
    pd.testing.assert_frame_equal(out[frame.columns], before)
    assert out["correct"].tolist() == EXPECTED_CORRECT
    assert to_data(out)["failure_kind"] == EXPECTED_KIND


def test_output_dtypes() -> None:
    out = pd.DataFrame({"answer": ANSWERS, "refs": REFS}).grade.answer_contains()
    assert out["correct"].dtype == np.dtype(bool)
    assert out["failure_kind"].dtype == pd.StringDtype(na_value=np.nan)
    assert out["outcome"].dtype == pd.StringDtype(na_value=np.nan)
    assert pd.isna(out["failure_kind"].iloc[0])


def _column(values: list[Any], kind: str) -> pd.Series:
    if kind == "object":
        return pd.Series(values, dtype=object)
    if kind == "string_pyarrow":
        return pd.Series(values, dtype="string[pyarrow]")
    if kind == "str_default":
        return pd.Series(values, dtype="str")
    if kind == "arrow_dtype":
        return pd.Series(values, dtype=pd.ArrowDtype(pl.Series(values).to_arrow().type))
    if kind == "category":
        return pd.Series(values, dtype="category")
    raise ValueError(kind)


@pytest.mark.parametrize(
    "kind", ["object", "string_pyarrow", "str_default", "arrow_dtype", "category"]
)
def test_answer_string_storage_kinds(kind: str) -> None:
    frame = pd.DataFrame(
        {"answer": _column(ANSWERS, kind), "refs": ["12400", "45.2", "7", "NOT_IN_DOCUMENT"]}
    )
    out = frame.grade.answer_contains()
    assert out["correct"].tolist() == EXPECTED_CORRECT


@pytest.mark.parametrize("kind", ["object", "string_pyarrow", "str_default", "category"])
def test_refs_string_storage_kinds(kind: str) -> None:
    frame = pd.DataFrame(
        {"answer": ANSWERS, "refs": _column(["12400", "45.2", "7", "NOT_IN_DOCUMENT"], kind)}
    )
    assert frame.grade.answer_contains()["correct"].tolist() == EXPECTED_CORRECT


def test_nan_and_none_are_missing() -> None:
    frame = pd.DataFrame(
        {"answer": ["it was 12", np.nan, None, "12"], "refs": ["12", "12", "12", np.nan]}
    )
    out = frame.grade.answer_contains()
    assert to_data(out)["failure_kind"] == [None, "parse_failure", "parse_failure", "no_reference"]


def test_refs_as_lists_tuples_and_arrays() -> None:
    refs = pd.Series([["x", "12400"], ("45.2",), np.array(["7", "8"]), None], dtype=object)
    frame = pd.DataFrame({"answer": ANSWERS, "refs": refs})
    assert to_data(frame.grade.answer_contains())["failure_kind"] == [
        None,
        "wrong",
        "parse_failure",
        "no_reference",
    ]


def test_object_column_of_output_records() -> None:
    records = [
        {"answer": "It was 12.", "partial": True, "notes": ["cost_cap_reached"]},
        {"answer": "It was 13.", "partial": True, "notes": ["cost_cap_reached"]},
        {"answer": None, "text": "It was 12."},
        {"answer": "nope", "trace": [{"finish_reason": "refusal"}]},
        None,
    ]
    frame = pd.DataFrame({"output": pd.Series(records, dtype=object), "refs": ["12"] * 5})
    out = frame.grade.answer_contains("output")
    assert to_data(out)["failure_kind"] == [None, "budget_stop", None, "refusal", "parse_failure"]


def test_mixed_object_answers_non_strings_are_parse_failures() -> None:
    frame = pd.DataFrame(
        {
            "answer": pd.Series(["It was 12", 12, 12.0, True, None, ["12"]], dtype=object),
            "refs": ["12"] * 6,
        }
    )
    out = frame.grade.answer_contains()
    assert to_data(out)["failure_kind"] == [None, *["parse_failure"] * 5]


def test_mixed_object_refs_numbers_in_plain_digits() -> None:
    frame = pd.DataFrame(
        {
            "answer": ["about 100,000", "it was 12", "it was 3.5", "x 7"],
            "refs": pd.Series([100000, "12", 3.5, ["7", 8]], dtype=object),
        }
    )
    assert frame.grade.answer_contains()["correct"].tolist() == [True, True, True, True]


def test_integer_refs_column() -> None:
    frame = pd.DataFrame({"answer": ["about 100,000", "it was 12"], "refs": [100000, 13]})
    assert frame.grade.answer_contains()["correct"].tolist() == [True, False]


def test_unreadable_column_names_the_column_and_dtype() -> None:
    frame = pd.DataFrame(
        {"answer": ["x", "y"], "refs": ["x", "y"], "notes": pd.Series([{1, 2}, 3], dtype=object)}
    )
    with pytest.raises(TypeError, match=r"column 'notes' \(pandas dtype object"):
        frame.grade.answer_contains(notes="notes")


def test_missing_column_names_the_argument() -> None:
    frame = pd.DataFrame({"answer": ["x"], "refs": ["x"]})
    with pytest.raises(
        pl.exceptions.ColumnNotFoundError, match=r"`refs='ref'`.*Did you mean 'refs'"
    ):
        frame.grade.answer_contains(refs="ref")


def test_only_needed_columns_are_converted() -> None:
    # a column Arrow cannot read is fine when the call does not need it
    frame = pd.DataFrame(
        {"answer": ["it was 12"], "refs": ["12"], "junk": pd.Series([object()], dtype=object)}
    )
    assert frame.grade.answer_contains()["correct"].tolist() == [True]


def test_pandas_equals_polars_on_the_bundled_example() -> None:
    polars_frame = gf.example()
    expected = polars_frame.grade.answer_contains()
    pandas_frame = polars_frame.to_pandas()
    got = pandas_frame.grade.answer_contains()
    assert to_data(got[["correct", "failure_kind", "outcome"]]) == to_data(
        expected.select("correct", "failure_kind", "outcome")
    )
    arrow_frame = polars_frame.to_pandas(use_pyarrow_extension_array=True)
    got = arrow_frame.grade.answer_contains()
    assert to_data(got[["correct", "failure_kind", "outcome"]]) == to_data(
        expected.select("correct", "failure_kind", "outcome")
    )


def test_series_accessor_keeps_index_and_name() -> None:
    series = pd.Series(["1,204 Units", None], index=pd.Index(["a", "a"]), name="answer")
    out = series.grade.fold()
    assert out.index.equals(series.index)
    assert out.name == "answer"
    assert to_data(out.to_frame())["answer"] == ["1204 units", None]


def test_accessor_registration_can_be_removed_and_restored() -> None:
    # pandas keeps accessors as class attributes; removing ours must leave pandas working
    descriptor = pd.DataFrame.__dict__["grade"]  # pandas' accessor descriptor, not the class
    try:
        del pd.DataFrame.grade
        assert not hasattr(pd.DataFrame({"a": [1]}), "grade")
    finally:
        pd.DataFrame.grade = descriptor
    assert hasattr(pd.DataFrame({"a": [1]}), "grade")
