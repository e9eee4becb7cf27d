from __future__ import annotations

import math
import random
import sys
from typing import Any

import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from gradeframe.report import WILSON_Z, wilson_interval
from tests.utils import FRAME_TYPES, assert_equal_data, make_frame, to_data

Z2 = WILSON_Z**2

# Three groups, given out of order: "b" has no correct row, "c" only correct rows.
DATA: dict[str, list[Any]] = {
    "model": ["b", "a", "c", "a", "b", "a", "c"],
    "split": ["x", "x", "y", "y", "x", "x", "y"],
    "correct": [False, True, True, False, False, False, True],
    "failure_kind": ["refusal", None, None, "wrong", "timeout", "wrong", None],
}
STANDARD = list(gf.KINDS)


def wilson(k: int, n: int) -> tuple[float, float]:
    """The textbook formula, written out for scalars."""
    p = k / n
    centre = (p + Z2 / (2 * n)) / (1 + Z2 / n)
    half = WILSON_Z * math.sqrt(p * (1 - p) / n + Z2 / (4 * n * n)) / (1 + Z2 / n)
    return centre - half, centre + half


def close(values: list[Any], expected: list[Any]) -> bool:
    return all(
        (v is None and e is None) or (v is not None and e is not None and math.isclose(v, e))
        for v, e in zip(values, expected, strict=True)
    ) and len(values) == len(expected)


def test_wilson_hand_values() -> None:
    # k = 0: the upper end is z²/(n + z²); k = n: the lower end is n/(n + z²).
    assert math.isclose(wilson(0, 2)[1], Z2 / (2 + Z2))
    assert math.isclose(wilson(2, 2)[0], 2 / (2 + Z2))
    # 1 of 3, worked by hand: p = 1/3, centre = 0.42643..., half = 0.36557...
    low, high = wilson(1, 3)
    assert math.isclose(low, 0.0614919, rel_tol=1e-5)
    assert math.isclose(high, 0.7923403, rel_tol=1e-5)


def test_wilson_interval_expression_ends_exactly() -> None:
    df = pl.DataFrame({"k": [0, 3, 1, 0, None], "n": [3, 3, 3, 0, 3]})
    out = df.select(*wilson_interval("k", "n"))
    assert out["ci_low"][0] == 0.0
    assert math.isclose(out["ci_low"][1], 3 / (3 + Z2))
    assert out["ci_high"].to_list()[1] == 1.0
    assert math.isclose(out["ci_high"][0], Z2 / (3 + Z2))
    assert out["ci_low"].to_list()[3:] == [None, None]
    assert out["ci_high"].to_list()[3:] == [None, None]


def test_report_by_group(constructor: Any) -> None:
    result = gf.report(constructor(DATA), "model")
    lows, highs = zip(wilson(1, 3), wilson(0, 2), wilson(2, 2), strict=True)
    assert_equal_data(
        result,
        {
            "model": ["a", "b", "c"],
            "n": [3, 2, 2],
            "n_correct": [1, 0, 2],
            "no_reference": [0, 0, 0],
            "error": [0, 0, 0],
            "parse_failure": [0, 0, 0],
            "budget_stop": [0, 0, 0],
            "refusal": [0, 1, 0],
            "not_in_document": [0, 0, 0],
            "wrong": [2, 0, 0],
            "timeout": [0, 1, 0],
        },
    )
    data = to_data(result)
    stats = ["model", "n", "n_correct", "accuracy", "ci_low", "ci_high"]
    assert list(data) == [*stats, *STANDARD, "timeout"]
    assert close(data["accuracy"], [1 / 3, 0.0, 1.0])
    assert data["ci_low"][1] == 0.0  # no correct row: the interval starts at 0 exactly
    assert data["ci_high"][2] == 1.0  # all correct: it ends at 1 exactly
    assert close(data["ci_low"], list(lows))
    assert close(data["ci_high"], list(highs))


def test_report_columns_in_table_order_then_carried_sorted(constructor: Any) -> None:
    data = {**DATA, "failure_kind": ["zeta", None, None, "wrong", "alpha", "wrong", None]}
    columns = list(to_data(gf.report(constructor(data), "model")))
    assert columns == [
        "model",
        "n",
        "n_correct",
        "accuracy",
        "ci_low",
        "ci_high",
        *STANDARD,
        "alpha",
        "zeta",
    ]


def test_report_without_by(constructor: Any) -> None:
    result = gf.report(constructor(DATA))
    low, high = wilson(3, 7)
    assert_equal_data(
        result, {"n": [7], "n_correct": [3], "refusal": [1], "wrong": [2], "timeout": [1]}
    )
    data = to_data(result)
    assert close(data["accuracy"], [3 / 7])
    assert close(data["ci_low"], [low])
    assert close(data["ci_high"], [high])


def test_report_by_several_columns(constructor: Any) -> None:
    result = gf.report(constructor(DATA), ["model", "split"])
    assert_equal_data(
        result,
        {
            "model": ["a", "a", "b", "c"],
            "split": ["x", "y", "x", "y"],
            "n": [2, 1, 2, 2],
            "n_correct": [1, 0, 0, 2],
            "wrong": [1, 1, 0, 0],
        },
    )


def test_report_through_the_namespace(constructor: Any) -> None:
    frame = constructor(DATA)
    assert_equal_data(frame.grade.report(by="model"), {"n": [3, 2, 2]})


def test_report_keeps_the_frame_type(constructor: Any) -> None:
    frame = constructor(DATA)
    result = gf.report(frame, "model")
    assert type(result) is type(frame)


def test_lazy_report_with_carried_kinds_named() -> None:
    lazy = pl.LazyFrame(DATA)
    result = gf.report(lazy, "model", carried_kinds=["timeout"])
    assert isinstance(result, pl.LazyFrame)
    assert result.collect_schema().names()[-1] == "timeout"
    assert_equal_data(result, {"timeout": [0, 1, 0]})


def test_null_correct_counts_as_not_right() -> None:
    df = pl.DataFrame({"correct": [True, None], "failure_kind": [None, None]})
    assert_equal_data(gf.report(df), {"n": [2], "n_correct": [1], "accuracy": [0.5]})


def test_empty_frame_without_by_has_null_accuracy() -> None:
    df = pl.DataFrame(
        {"model": [], "correct": [], "failure_kind": []},
        schema={"model": pl.String, "correct": pl.Boolean, "failure_kind": pl.String},
    )
    assert_equal_data(
        gf.report(df),
        {"n": [0], "n_correct": [0], "accuracy": [None], "ci_low": [None], "ci_high": [None]},
    )
    assert gf.report(df, "model").height == 0


def test_null_group_sorts_last() -> None:
    df = pl.DataFrame({"model": [None, "a"], "correct": [True, True], "failure_kind": [None] * 2})
    assert_equal_data(gf.report(df, "model"), {"model": ["a", None]})


def test_report_on_the_example() -> None:
    graded = gf.example().grade.answer_contains()
    result = graded.grade.report("model")
    assert_equal_data(
        result,
        {
            "model": ["atlas-large", "atlas-small", "beacon-7b", "cedar-mini"],
            "n": [30, 30, 30, 30],
            "n_correct": [27, 24, 22, 18],
            "timeout": [1, 0, 0, 1],
        },
    )
    kind_columns = [*STANDARD, "timeout"]
    totals = result.select(pl.sum_horizontal(kind_columns) + pl.col("n_correct")).to_series()
    assert totals.to_list() == [30] * 4


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"by": "modle"}, pl.exceptions.ColumnNotFoundError, "Did you mean 'model'"),
        ({"by": 3}, TypeError, "`by` must be"),
        ({"by": ["model", "model"]}, ValueError, "more than once"),
        ({"correct": "model"}, TypeError, "`correct`: column 'model' has dtype String"),
        ({"failure_kind": "correct"}, TypeError, "`failure_kind`: column 'correct'"),
        ({"failure_kind": "kind"}, pl.exceptions.ColumnNotFoundError, "`failure_kind='kind'`"),
        ({"by": "n"}, ValueError, "share a name with report columns"),
    ],
)
def test_report_errors_name_the_argument(kwargs: dict[str, Any], error: type, match: str) -> None:
    df = pl.DataFrame({**DATA, "n": range(7)})
    with pytest.raises(error, match=match):
        gf.report(df, **kwargs)


def test_report_refuses_other_objects() -> None:
    with pytest.raises(TypeError, match="Polars DataFrame or LazyFrame or a pandas DataFrame"):
        gf.report({"correct": [True]})


# --------------------------------------------------------------------------------------------
# failures
# --------------------------------------------------------------------------------------------


FAIL_DATA: dict[str, list[Any]] = {
    "id": [1, 2, 3, 4],
    "answer": ["It made 12,400 units.", "About 145.2 m", "x" * 600, None],
    "refs": [["12400"], ["45.2", "45.2 m"], ["y" * 499, "z"], ["7"]],
}


def test_failures_keep_order_and_columns_and_cut(constructor: Any) -> None:
    graded = constructor(FAIL_DATA).grade.answer_contains()
    result = gf.failures(graded)
    long_actual = "x" * 499 + "…"
    long_expected = ("y" * 499 + " | z")[:499] + "…"
    assert_equal_data(
        result,
        {
            "id": [2, 3, 4],
            "failure_kind": ["wrong", "wrong", "parse_failure"],
            "actual": ["About 145.2 m", long_actual, None],
            "expected": ["45.2 | 45.2 m", long_expected, "7"],
        },
    )
    data = to_data(result)
    assert len(data["actual"][1]) == gf.MAX_METADATA_LENGTH
    assert len(data["expected"][1]) == gf.MAX_METADATA_LENGTH
    assert list(data)[: len(to_data(graded))] == list(to_data(graded))
    assert type(result) is type(graded)


def test_failures_of_one_kind(constructor: Any) -> None:
    graded = constructor(FAIL_DATA).grade.answer_contains()
    assert_equal_data(graded.grade.failures(kind="parse_failure"), {"id": [4]})
    assert_equal_data(graded.grade.failures(kind=["wrong"], actual=False), {"id": [2, 3]})


def test_failures_on_pandas_keep_index_labels() -> None:
    frame = pd.DataFrame(FAIL_DATA, index=[10, 20, 30, 40]).grade.answer_contains()
    result = frame.grade.failures()
    assert result.index.tolist() == [20, 30, 40]
    assert result["actual"].tolist()[0] == "About 145.2 m"


def test_failures_show_the_answer_of_an_output_record() -> None:
    graded = gf.example().grade.answer_contains()
    result = graded.grade.failures()
    assert result.height == 29
    shown = dict(zip(result["question_id"] + "/" + result["model"], result["actual"], strict=True))
    assert shown["q06/atlas-small"] == "Revenue was £145.2 m."
    # No answer text: the record is shown, so the reader sees why (here, the status).
    assert '"status":"error"' in shown["q05/cedar-mini"]


def test_failures_numbers_shown_as_text() -> None:
    df = pl.DataFrame({"answer": [1.5, 2.0], "refs": [2, 2], "correct": [False, True]})
    shown = gf.failures(df, actual="answer", expected="refs")
    assert_equal_data(shown, {"actual": ["1.5"], "expected": ["2"]})


def test_failures_show_lists_of_tool_calls_as_json_not_a_cast_error(constructor: Any) -> None:
    calls = {
        "tool_calls": [[], None, [{"name": "search", "arguments": {"q": "x"}}]],
        "expected_calls": [[{"name": "book", "arguments": {"q": "y"}}]] * 3,
    }
    graded = constructor(calls).grade.tool_calls()
    shown = gf.failures(graded, actual="tool_calls", expected="expected_calls")
    want = ['[{"name":"book","arguments":{"q":"y"}}]'] * 3
    assert_equal_data(shown, {"actual": ["[]", None, '[{"name":"search","arguments":{"q":"x"}}]']})
    assert_equal_data(shown, {"expected": want})


def test_failures_refuse_to_overwrite_and_take_a_prefix() -> None:
    df = pl.DataFrame(
        {"answer": ["a"], "refs": ["b"], "actual": ["c"], "correct": [False], "outcome": ["a"]}
    )
    with pytest.raises(ValueError, match="prefix="):
        gf.failures(df)
    renamed = df.rename({"correct": "shown_correct", "outcome": "shown_outcome"})
    out = gf.failures(renamed, prefix="shown_")
    assert out.columns[-2:] == ["shown_actual", "shown_expected"]


def test_failures_kind_needs_failure_kind() -> None:
    df = pl.DataFrame({"answer": ["a"], "refs": ["b"], "correct": [False], "outcome": ["a"]})
    with pytest.raises(ValueError, match="`kind` needs the `failure_kind` column"):
        gf.failures(df, kind="wrong", failure_kind=None)
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`actual='answr'`"):
        gf.failures(df, actual="answr")


# --------------------------------------------------------------------------------------------
# chart
# --------------------------------------------------------------------------------------------


def test_chart_spec() -> None:
    graded = gf.example().grade.answer_contains()
    spec = gf.chart(graded, "model", title="Example").to_dict()
    assert spec["title"] == "Example"
    bars, accuracy = spec["hconcat"]
    assert bars["mark"]["type"] == "bar"
    assert bars["encoding"]["color"]["sort"] == [*STANDARD, "timeout"]
    assert bars["encoding"]["y"]["sort"] == [
        "atlas-large",
        "atlas-small",
        "beacon-7b",
        "cedar-mini",
    ]
    values = bars["data"]["values"]
    counted = {(v["group"], v["failure_kind"]): v["count"] for v in values}
    assert counted[("cedar-mini", "wrong")] == 5
    assert counted[("atlas-large", "timeout")] == 1
    assert ("atlas-large", "error") not in counted  # zero counts are not drawn
    rule, point = accuracy["layer"]
    assert rule["mark"]["type"] == "rule"
    assert rule["encoding"]["x2"]["field"] == "ci_high"
    assert point["encoding"]["x"]["field"] == "accuracy"
    points = {v["group"]: v for v in accuracy["data"]["values"]}
    assert points["atlas-large"]["accuracy"] == 0.9


@pytest.mark.parametrize("frame_type", ["polars_lazy", "pandas_object"])
def test_chart_on_other_frames_and_several_groups(frame_type: str) -> None:
    graded = gf.example().grade.answer_contains()
    frame = graded.lazy() if frame_type == "polars_lazy" else graded.drop("answer").to_pandas()
    spec = frame.grade.chart(by=["model", "question_id"]).to_dict()
    groups = {v["group"] for v in spec["hconcat"][1]["data"]["values"]}
    assert "atlas-large / q01" in groups
    assert spec["hconcat"][0]["encoding"]["y"]["title"] == "model / question_id"


def test_chart_without_altair(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "altair", None)
    graded = gf.example().grade.answer_contains()
    with pytest.raises(ImportError, match=r"pip install 'gradeframe\[chart\]'"):
        gf.chart(graded, "model")


@pytest.mark.parametrize("kind", ["polars_eager", "pandas_object"])
@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda f: f.grade.report(by="modl"), "by"),
        (lambda f: f.grade.failures(actual="answr"), "actual"),
        (lambda f: f.grade.report(correct="corect"), "correct"),
    ],
    ids=["report_by", "failures_actual", "report_correct"],
)
def test_missing_column_is_named_on_polars_and_pandas(kind: str, call: Any, argument: str) -> None:
    graded = gf.example().grade.answer_contains()
    frame = graded if kind == "polars_eager" else graded.to_pandas()
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match=rf"`{argument}='"):
        call(frame)


# --------------------------------------------------------------------------------------------
# report on a matcher's output, prefixes, cluster= and score=
# --------------------------------------------------------------------------------------------


def test_report_on_a_matcher_output_leaves_kind_columns_out(constructor: Any) -> None:
    frame = constructor({"pred": ["B", "c", "A"], "gold": ["B", "A", "A"]})
    graded = frame.grade.exact_match("pred", "gold")
    columns = list(to_data(gf.report(graded)))
    assert columns == ["n", "n_correct", "accuracy", "ci_low", "ci_high"]
    assert_equal_data(gf.report(graded), {"n": [3], "n_correct": [2]})


def test_report_explicitly_named_missing_kind_column_raises(constructor: Any) -> None:
    frame = constructor({"correct": [True, False]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`failure_kind='kinds'`"):
        gf.report(frame, failure_kind="kinds")


def test_report_prefix_reads_the_prefixed_default_columns(constructor: Any) -> None:
    frame = constructor(
        {
            "model": ["a", "a", "b"],
            "answer": ["12", "13", "12"],
            "refs": ["12", "12", "12"],
            "old": [False, False, False],  # a verdict the prefixed report must not read
        }
    )
    graded = frame.grade.answer_contains(prefix="new_")
    assert_equal_data(
        gf.report(graded, "model", prefix="new_"),
        {"model": ["a", "b"], "n_correct": [1, 1], "wrong": [1, 0]},
    )
    # An explicit name is used as given, not prefixed.
    assert_equal_data(
        gf.report(graded, "model", prefix="new_", correct="old"), {"n_correct": [0, 0]}
    )
    # A name equal to the default counts as the default (so a forwarding wrapper that passes
    # the default explicitly still gets the prefix).
    assert_equal_data(
        gf.report(graded, "model", prefix="new_", correct="correct"), {"n_correct": [1, 1]}
    )


def test_report_prefix_with_a_missing_prefixed_correct_names_it() -> None:
    df = pl.DataFrame({"correct": [True]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`correct='x_correct'`"):
        gf.report(df, prefix="x_")


def test_report_cluster_columns_and_width(constructor: Any) -> None:
    # Four questions, three epochs each, answered the same way every epoch: the clustered
    # interval must be wider than Wilson's, which takes the 12 rows as independent.
    data = {
        "question_id": ["q1", "q2", "q3", "q4"] * 3,
        "correct": [True, True, True, False] * 3,
    }
    plain = to_data(gf.report(constructor(data)))
    clustered = to_data(gf.report(constructor(data), cluster="question_id"))
    assert list(clustered) == [*STAT_NAMES, "n_clusters"]
    assert clustered["n_clusters"] == [4]
    assert clustered["accuracy"] == plain["accuracy"]
    width = clustered["ci_high"][0] - clustered["ci_low"][0]
    assert width > plain["ci_high"][0] - plain["ci_low"][0]


def test_report_cluster_interval_is_clipped_to_0_1(constructor: Any) -> None:
    data = {"question_id": ["q1", "q2", "q3"] * 2, "correct": [True, True, False] * 2}
    out = to_data(gf.report(constructor(data), cluster="question_id"))
    assert out["ci_high"] == [1.0]  # 2/3 + 1.96 * se exceeds 1
    assert 0.0 <= out["ci_low"][0] <= out["accuracy"][0]


def test_report_one_cluster_has_no_interval(constructor: Any) -> None:
    data = {"question_id": ["q1"] * 3, "correct": [True, False, True]}
    assert_equal_data(
        gf.report(constructor(data), cluster="question_id"),
        {"n_clusters": [1], "ci_low": [None], "ci_high": [None]},
    )


def test_report_score_columns_follow_the_interval(constructor: Any) -> None:
    data = {"model": ["a", "a", "b"], "correct": [True, False, True], "f1": [1.0, 0.5, None]}
    out = to_data(gf.report(constructor(data), "model", score="f1"))
    assert list(out) == ["model", *STAT_NAMES, "mean_score", "score_ci_low", "score_ci_high"]
    assert out["mean_score"] == [0.75, None]
    assert out["score_ci_low"][1] is None  # no score in group b


def test_report_score_must_be_numeric() -> None:
    df = pl.DataFrame({"correct": [True], "f1": ["0.5"]})
    with pytest.raises(TypeError, match="`score`: column 'f1' has dtype String"):
        gf.report(df, score="f1")


def test_report_cluster_that_is_a_by_column_raises() -> None:
    with pytest.raises(ValueError, match="also a `by` column"):
        gf.report(pl.DataFrame(DATA), "model", cluster="model")


def test_lazy_report_with_cluster_and_score_stays_lazy() -> None:
    lazy = pl.LazyFrame({**DATA, "f1": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7]})
    out = gf.report(lazy, "model", cluster="split", score="f1", carried_kinds=["timeout"])
    assert isinstance(out, pl.LazyFrame)
    assert out.collect().height == 3


STAT_NAMES = ["n", "n_correct", "accuracy", "ci_low", "ci_high"]


# --------------------------------------------------------------------------------------------
# failures on a matcher's output, and MAX_METADATA_LENGTH at run time
# --------------------------------------------------------------------------------------------


def test_failures_on_a_matcher_output_ask_for_the_compared_columns(constructor: Any) -> None:
    frame = constructor({"pred": ["B", "c"], "gold": ["B", "A"], "refs": ["x", "y"]})
    graded = frame.grade.exact_match("pred", "gold")
    with pytest.raises(ValueError, match=r"failures\(actual=..., expected=...\)"):
        gf.failures(graded)
    shown = gf.failures(graded, actual="pred", expected="gold")
    assert_equal_data(shown, {"actual": ["c"], "expected": ["A"], "expectation": ["exact match"]})


def test_failures_show_a_column_named_actual_in_place(constructor: Any) -> None:
    frame = constructor({"actual": ["B", "c"], "expected": ["B", "A"]})
    graded = frame.grade.exact_match("actual", "expected")
    shown = to_data(gf.failures(graded, actual="actual", expected="expected"))
    assert shown["actual"] == ["c"]
    assert list(shown).count("actual") == 1


def test_max_metadata_length_set_at_run_time_takes_effect(
    constructor: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(gf, "MAX_METADATA_LENGTH", 20)
    graded = constructor(FAIL_DATA).grade.answer_contains()
    data = to_data(gf.failures(graded))
    assert len(data["actual"][1]) == 20
    assert data["actual"][1].endswith("…")


def test_report_does_not_import_the_pandas_accessor() -> None:
    import ast
    from pathlib import Path

    for module in ("report.py", "stats.py", "compare.py", "chart.py"):
        tree = ast.parse((Path(gf.__file__).parent / module).read_text(encoding="utf-8"))
        imported = {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module == "gradeframe"
            for alias in node.names
        }
        modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert "_pandas" not in imported, module
        assert "gradeframe._pandas" not in modules, module


# --------------------------------------------------------------------------------------------
# compare and agreement: shapes, edges, errors
# --------------------------------------------------------------------------------------------


PAIRED: dict[str, list[Any]] = {
    "model": ["x", "x", "x", "y", "y", "z"],
    "question_id": ["q1", "q2", "q3", "q1", "q2", "q9"],
    "correct": [True, False, True, True, True, False],
}


def test_compare_pair_without_shared_items_has_a_row(constructor: Any) -> None:
    out = gf.compare(constructor(PAIRED))
    assert_equal_data(
        out,
        {
            "a": ["x", "x", "y"],
            "b": ["y", "z", "z"],
            "n_items": [2, 0, 0],
            "both_right": [1, 0, 0],
            "only_b": [1, 0, 0],
            "difference": [0.5, None, None],
            "p_value": [1.0, None, None],
        },
    )


def test_compare_lazy_in_lazy_out() -> None:
    out = gf.compare(pl.LazyFrame(PAIRED), baseline="x")
    assert isinstance(out, pl.LazyFrame)
    assert_equal_data(out, {"b": ["y", "z"]})


def test_compare_missing_baseline_is_named() -> None:
    with pytest.raises(ValueError, match="`baseline='w'` is not a value of 'model'"):
        gf.compare(pl.DataFrame(PAIRED), baseline="w")


def test_compare_several_on_columns_and_namespace(constructor: Any) -> None:
    data = {**PAIRED, "split": ["s"] * 6}
    out = constructor(data).grade.compare(on=["split", "question_id"])
    assert_equal_data(out, {"n_items": [2, 0, 0]})


def test_compare_majority_verdict_with_epochs(constructor: Any) -> None:
    data = {
        "model": ["x"] * 4 + ["y"] * 4,
        "question_id": ["q1", "q1", "q2", "q2"] * 2,
        "correct": [True, False, False, False, True, True, False, True],
    }
    out = to_data(gf.compare(constructor(data)))
    # x: q1 0.5 (right by majority), q2 0.0; y: q1 1.0, q2 0.5 (right).
    assert out["both_right"] == [1]
    assert out["only_b"] == [1]
    assert out["accuracy_a"] == [0.25]
    assert out["accuracy_b"] == [0.75]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"by": "modl"}, pl.exceptions.ColumnNotFoundError, "`by='modl'`"),
        ({"on": "qid"}, pl.exceptions.ColumnNotFoundError, "`on='qid'`"),
        ({"on": []}, TypeError, "`on` must be"),
        ({"correct": "model"}, TypeError, "`correct`: column 'model'"),
        ({"on": "model"}, ValueError, "also an `on` column"),
        ({"adjust": "fdr"}, ValueError, "`adjust` must be one of 'holm', 'bonferroni' or None"),
        ({"adjust": True}, ValueError, "`adjust` must be one of"),
        ({"by": []}, ValueError, "non-empty list"),
        ({"by": ["model", "model"]}, ValueError, "more than once"),
        ({"by": ["model", "verdict"]}, pl.exceptions.ColumnNotFoundError, "`by='verdict'`"),
    ],
)
def test_compare_errors_name_the_argument(kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        gf.compare(pl.DataFrame(PAIRED), **kwargs)


def test_agreement_leaves_out_rows_with_a_null_verdict(constructor: Any) -> None:
    data = {"t": [True, None, False, True], "c": [True, True, True, None]}
    out = gf.agreement(constructor(data), "t", "c")
    assert_equal_data(out, {"n": [2], "both_right": [1], "only_b": [1], "agreement": [0.5]})


def test_agreement_through_the_namespace_and_errors(constructor: Any) -> None:
    frame = constructor({"t": [True, False], "c": [True, True], "g": ["a", "b"]})
    assert_equal_data(frame.grade.agreement("t", "c", by="g"), {"g": ["a", "b"], "n": [1, 1]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="`b='cc'`"):
        frame.grade.agreement("t", "cc")


def test_agreement_rejects_a_non_boolean_verdict() -> None:
    with pytest.raises(TypeError, match="`a`: column 't' has dtype String"):
        gf.agreement(pl.DataFrame({"t": ["yes"], "c": [True]}), "t", "c")


def test_compare_chart_spec() -> None:
    graded = gf.example().grade.answer_contains()
    spec = graded.grade.compare_chart(baseline="atlas-large", title="Paired").to_dict()
    assert spec["title"] == "Paired"
    _zero, rule, point = spec["layer"]
    assert rule["encoding"]["x2"]["field"] == "ci_high"
    assert point["encoding"]["x"]["field"] == "difference"
    pairs = (
        [v["pair"] for v in spec["datasets"][point["data"]["name"]]]
        if "datasets" in spec
        else [v["pair"] for v in point["data"]["values"]]
    )
    assert pairs == [
        "atlas-small − atlas-large",
        "beacon-7b − atlas-large",
        "cedar-mini − atlas-large",
    ]


def test_identical_calls_give_the_same_score_bits_on_every_frame_type() -> None:
    # Scores of every size in many groups: Polars' own float sum depends on its threads and
    # chunks, so identical calls could differ in the last bits of mean_score and its interval.
    rng = random.Random(38)
    rows = 30_000
    data = {
        "model": [f"m{rng.randrange(40)}" for _ in range(rows)],
        "correct": [rng.random() < 0.5 for _ in range(rows)],
        "f1": [rng.random() * rng.choice([1e-8, 1.0, 1e8]) for _ in range(rows)],
    }
    data["failure_kind"] = [None if right else "wrong" for right in data["correct"]]
    frames = [make_frame(kind, data) for kind in FRAME_TYPES]
    first = to_data(gf.report(frames[0], "model", score="f1"))
    for frame in [frames[0]] * 4 + frames[1:]:
        again = to_data(gf.report(frame, "model", score="f1"))
        for name in ("mean_score", "score_ci_low", "score_ci_high"):
            # Bits, not a tolerance: the repr of a float is its exact value.
            assert [repr(v) for v in again[name]] == [repr(v) for v in first[name]], name
    exact = {}
    for model, score in zip(data["model"], data["f1"], strict=True):
        exact.setdefault(model, []).append(score)
    means = dict(zip(first["model"], first["mean_score"], strict=True))
    for model, scores in exact.items():
        assert means[model] == pytest.approx(math.fsum(scores) / len(scores), rel=1e-12)
