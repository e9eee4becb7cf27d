"""tool_calls (SPEC §14): case tables on every frame type, errors, and a scalar reference."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gradeframe as gf
import gradeframe.matchers.tool_calls
from gradeframe.matchers.tool_calls import MODES
from tests import reference_tool_calls as ref
from tests.utils import assert_equal_data, to_data


@pytest.fixture(params=[False, True], ids=["fast", "general"])
def general(request, monkeypatch):
    """Run a test on the fast path (one Arrow decode) and on the general path (tagged JSON)."""
    if request.param:
        monkeypatch.setattr(tool_calls_module, "FAST", False)
    return request.param


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


def text(calls: list[dict] | None) -> str | None:
    return None if calls is None else json.dumps(calls)


a, b, c, d = call("a"), call("b"), call("c"), call("d")

# (id, actual calls, expected calls, mode, correct, missing, extra): names only, arguments exact
MODE_CASES = [
    ("exact_same_calls_same_order", [a, b], [a, b], "exact", True, [], []),
    ("exact_an_extra_call_at_the_end_fails", [a, b, c], [a, b], "exact", False, [], ["c"]),
    ("exact_a_missing_call_fails", [a], [a, b], "exact", False, ["b"], []),
    ("exact_other_order_fails", [c, a, b], [a, b, c], "exact", False, ["c"], ["c"]),
    ("in_order_calls_between_are_allowed", [a, b, c], [a, c], "in_order", True, [], ["b"]),
    ("in_order_other_order_fails", [c, a, b], [a, b, c], "in_order", False, ["c"], ["c"]),
    ("in_order_repeated_call_needs_two", [a, b], [a, a], "in_order", False, ["a"], ["b"]),
    ("in_order_nothing_expected_is_true", [a, b], [], "in_order", True, [], ["a", "b"]),
    ("any_order_swapped_is_true", [b, a], [a, b], "any_order", True, [], []),
    ("any_order_a_repeat_is_extra", [b, a, a], [a, b], "any_order", False, [], ["a"]),
    ("any_order_counts_repeats", [a, b], [a, a, b], "any_order", False, ["a"], []),
    ("superset_more_actual_calls_is_true", [b, a, c], [a], "superset", True, [], ["b", "c"]),
    ("superset_one_call_cannot_serve_two", [a], [a, a], "superset", False, ["a"], []),
    ("subset_fewer_actual_calls_is_true", [c, a], [a, b, c], "subset", True, ["b"], []),
    ("subset_an_unexpected_call_fails", [a, d], [a, b, c], "subset", False, ["b", "c"], ["d"]),
    ("subset_no_calls_is_true", [], [a, b], "subset", True, ["a", "b"], []),
    ("null_actual_is_no_calls", None, [a], "superset", False, ["a"], []),
    ("null_expected_is_no_calls", [a], None, "superset", True, [], ["a"]),
    ("both_null_is_exact", None, None, "exact", True, [], []),
]


@pytest.mark.parametrize(
    ("actual", "expected", "mode", "correct", "missing", "extra"),
    [case[1:] for case in MODE_CASES],
    ids=[case[0] for case in MODE_CASES],
)
def test_modes(constructor, general, actual, expected, mode, correct, missing, extra) -> None:
    for written in (text, lambda calls: calls):  # JSON text, then lists of structs
        frame = constructor(
            {"tool_calls": [written(actual)], "expected_calls": [written(expected)]}
        )
        result = frame.grade.tool_calls(mode=mode)
        assert_equal_data(
            result,
            {"correct": [correct], "expectation": [mode], "missing": [missing], "extra": [extra]},
        )


tool_calls_module = sys.modules["gradeframe.matchers.tool_calls"]


def f(**arguments) -> list[dict]:
    return [call("f", **arguments)]


# (id, actual arguments, expected arguments, arguments=, rel_tol, correct); one call each side
ARGUMENT_CASES = [
    ("keys_in_any_order", {"x": 1, "y": "a"}, {"y": "a", "x": 1}, "exact", 0.0, True),
    ("one_equals_one_point_zero", {"x": 1}, {"x": 1.0}, "exact", 0.0, True),
    ("exponent_is_a_number_by_value", {"x": 100}, {"x": 1e2}, "exact", 0.0, True),
    ("text_one_is_not_number_one", {"x": "1"}, {"x": 1}, "exact", 0.0, False),
    ("true_is_not_one", {"x": True}, {"x": 1}, "exact", 0.0, False),
    ("false_is_not_zero", {"x": False}, {"x": 0}, "exact", 0.0, False),
    ("null_value_is_an_absent_key", {"x": 1, "y": None}, {"x": 1}, "exact", 0.0, True),
    ("an_extra_key_fails", {"x": 1, "y": 2}, {"x": 1}, "exact", 0.0, False),
    ("strings_exactly_case", {"city": "paris"}, {"city": "Paris"}, "exact", 0.0, False),
    ("strings_no_unicode_normalisation", {"s": "e\u0301"}, {"s": "\u00e9"}, "exact", 0.0, False),
    (
        "nested_keys_any_order",
        {"o": {"b": 2, "a": [1]}},
        {"o": {"a": [1.0], "b": 2}},
        "exact",
        0.0,
        True,
    ),
    ("lists_in_order", {"xs": [1, 2]}, {"xs": [2, 1]}, "exact", 0.0, False),
    ("lists_of_other_length", {"xs": [1, 2]}, {"xs": [1, 2, 3]}, "exact", 0.0, False),
    ("empty_object_is_not_null", {"o": {}}, {"o": None}, "exact", 0.0, False),
    (
        "a_date_is_text_not_a_time",
        {"d": "2024-05-01"},
        {"d": "2024-05-01 00:00:00"},
        "exact",
        0.0,
        False,
    ),
    (
        "a_date_within_tolerance_is_still_text",
        {"d": "2024-05-01"},
        {"d": "2024-05-01T00:00"},
        "exact",
        0.1,
        False,
    ),
    (
        "a_date_equals_its_own_text",
        {"d": "2024-05-01", "n": None},
        {"d": "2024-05-01"},
        "exact",
        0.0,
        True,
    ),
    ("ignore_compares_names_only", {"x": 1}, {"x": 2, "y": 3}, "ignore", 0.0, True),
    ("listed_key_equal_others_ignored", {"x": 1, "y": 1}, {"x": 1.0, "y": 2}, ["x"], 0.0, True),
    ("listed_key_differs", {"x": 1, "y": 1}, {"x": 2, "y": 1}, ["x"], 0.0, False),
    ("listed_key_missing_on_one_side", {"y": 1}, {"x": 1, "y": 1}, ["x"], 0.0, False),
    ("listed_key_absent_on_both_sides", {"y": 1}, {"y": 2}, ["x"], 0.0, True),
    ("rel_tol_within", {"x": 104}, {"x": 100}, "exact", 0.05, True),
    ("rel_tol_outside", {"x": 106}, {"x": 100}, "exact", 0.05, False),
    ("rel_tol_is_relative_to_the_larger", {"x": 95.1}, {"x": 100}, "exact", 0.05, True),
    (
        "rel_tol_nested_numbers",
        {"o": {"xs": [1.001, 2]}},
        {"o": {"xs": [1, 2]}},
        "exact",
        0.01,
        True,
    ),
    ("rel_tol_does_not_make_text_a_number", {"x": "1"}, {"x": 1}, "exact", 0.5, False),
    ("rel_tol_with_listed_keys", {"x": 1.01, "y": 5}, {"x": 1, "y": 9}, ["x"], 0.05, True),
    ("rel_tol_zero_needs_equal", {"x": 0.0}, {"x": -0.0}, "exact", 0.0, True),
]


@pytest.mark.parametrize(
    ("actual", "expected", "arguments", "rel_tol", "correct"),
    [case[1:] for case in ARGUMENT_CASES],
    ids=[case[0] for case in ARGUMENT_CASES],
)
def test_argument_rules(
    constructor, general, actual, expected, arguments, rel_tol, correct
) -> None:
    frame = constructor(
        {"tool_calls": [text(f(**actual))], "expected_calls": [text(f(**expected))]}
    )
    result = frame.grade.tool_calls(mode="exact", arguments=arguments, rel_tol=rel_tol)
    missing, extra = ([], []) if correct else (["f"], ["f"])
    assert_equal_data(result, {"correct": [correct], "missing": [missing], "extra": [extra]})


def test_arguments_as_json_text_inside_calls_match_objects(constructor) -> None:
    actual = [{"id": "call_1", "type": "function", "name": "f", "arguments": '{"x": 1, "y": [2]}'}]
    expected = [{"name": "f", "arguments": {"y": [2.0], "x": 1.0}}]
    frame = constructor({"tool_calls": [text(actual)], "expected_calls": [text(expected)]})
    assert_equal_data(frame.grade.tool_calls(mode="exact"), {"correct": [True]})


def test_struct_columns_with_arguments_of_different_keys_per_row(constructor) -> None:
    frame = constructor(
        {
            "tool_calls": [[call("f", x=1)], [call("g", y="a")], [call("g", y="b")]],
            "expected_calls": [[call("f", x=1)], [call("g", y="a")], [call("g", y="a")]],
        }
    )
    assert_equal_data(frame.grade.tool_calls(), {"correct": [True, True, False]})


def test_struct_columns_negative_zero_equals_zero_at_every_depth(constructor) -> None:
    """Keys of struct columns are hashes: -0.0 must hash as 0.0 at the top, in lists, in structs."""
    zero, negative = 0.0, -0.0
    frame = constructor(
        {
            "tool_calls": [
                [call("f", x=negative, xs=[1.0, negative], o={"y": negative})],
                [call("f", x=negative, xs=[1.0, 2.0], o={"y": 1.0})],
            ],
            "expected_calls": [
                [call("f", x=zero, xs=[1.0, zero], o={"y": zero})],
                [call("f", x=1.0, xs=[1.0, 2.0], o={"y": 1.0})],
            ],
        }
    )
    for mode in ("exact", "any_order"):
        result = frame.grade.tool_calls(mode=mode)
        assert_equal_data(result, {"correct": [True, False]})


@pytest.mark.parametrize("mode", ["exact", "in_order", "any_order", "superset", "subset"])
def test_runs_fall_back_to_the_exact_sort_when_mixed_keys_clash(monkeypatch, mode) -> None:
    """Every (row, key) mixed to one value: the runs must come from the sort on (row, key)."""
    rows = [([a, b, a, c], [b, a, d]), ([c, c], [c]), ([d, a], [a, d, a]), ([b], [b])]
    frame = pl.DataFrame(
        {"tool_calls": [text(x) for x, _ in rows], "expected_calls": [text(y) for _, y in rows]}
    )
    monkeypatch.setattr(tool_calls_module, "_mixed", lambda row, key: key * 0)
    result = to_data(frame.grade.tool_calls(mode=mode))
    for i, (actual, expected) in enumerate(rows):
        correct, missing, extra = ref.grade(actual, expected, mode=mode)
        got = (result["correct"][i], len(result["missing"][i]), len(result["extra"][i]))
        assert got == (correct, missing, extra)


def test_struct_actual_against_text_expected() -> None:
    frame = pl.DataFrame(
        {
            "tool_calls": [[call("f", x=1, y=None)], [call("f", x=2, y=None)]],
            "expected_calls": [text(f(x=1.0)), text(f(x=1))],
        }
    )
    assert frame.grade.tool_calls().get_column("correct").to_list() == [True, False]


def test_greedy_counter_case_a_maximum_matching_is_found(constructor) -> None:
    """The first expected call could take the first actual call, leaving the second none."""
    actual = [call("f", x=105), call("f", x=95)]
    expected = [call("f", x=100), call("f", x=110)]
    assert not ref.greedy_superset(actual, expected, 0.1)
    frame = constructor({"tool_calls": [text(actual)], "expected_calls": [text(expected)]})
    for mode in ("superset", "any_order", "subset"):
        result = frame.grade.tool_calls(mode=mode, rel_tol=0.1)
        assert_equal_data(result, {"correct": [True], "missing": [[]], "extra": [[]]})


def test_greedy_counter_case_in_order_is_a_longest_match(constructor) -> None:
    """In order, the first actual call could serve the first expected call and lose the second."""
    actual = [call("f", x=105), call("f", x=95)]
    expected = [call("f", x=110), call("f", x=100)]
    frame = constructor({"tool_calls": [text(actual)], "expected_calls": [text(expected)]})
    result = frame.grade.tool_calls(mode="in_order", rel_tol=0.1)
    assert_equal_data(result, {"correct": [True], "missing": [[]], "extra": [[]]})


def test_long_lists_past_one_machine_word() -> None:
    """The in-order match works on bit vectors of 63 calls a word: 150 calls use three."""
    calls = [call(f"t{i % 7}", i=i % 5) for i in range(150)]
    expected = calls[::3]
    frame = pl.DataFrame({"tool_calls": [text(calls)], "expected_calls": [text(expected)]})
    result = frame.grade.tool_calls(mode="in_order")
    assert result.get_column("correct").to_list() == [True]
    assert len(result.get_column("extra")[0]) == 100
    reverse = frame.grade.tool_calls("expected_calls", "tool_calls", mode="in_order")
    assert reverse.get_column("missing").list.len().to_list() == [100]


def test_prefix_and_label(constructor) -> None:
    frame = constructor({"tool_calls": [text([a])], "expected_calls": [text([a])]})
    result = frame.grade.tool_calls(label="right tools", prefix="t_")
    assert_equal_data(
        result, {"t_correct": [True], "t_expectation": ["right tools"], "t_missing": [[]]}
    )


def test_expression_form_without_schema_defers_to_the_data() -> None:
    frame = pl.DataFrame({"tool_calls": [text([a, b])], "expected_calls": [text([b])]})
    expr = gf.tool_calls(mode="subset")
    assert frame.select(expr).unnest("tool_calls").get_column("extra").to_list() == [["a"]]
    lazy = frame.lazy().with_columns(gf.tool_calls(mode="superset").alias("t")).collect()
    assert lazy.get_column("t").struct.field("correct").to_list() == [True]


def test_rows_keep_their_order_and_count_on_a_lazy_frame() -> None:
    rows = 500
    frame = pl.DataFrame(
        {
            "tool_calls": [text([call("f", i=i)]) if i % 3 else None for i in range(rows)],
            "expected_calls": [text([call("f", i=i)]) for i in range(rows)],
        }
    )
    result = frame.lazy().grade.tool_calls().collect()
    assert result.get_column("correct").to_list() == [i % 3 != 0 for i in range(rows)]


def test_pandas_object_column_whose_arguments_differ_in_kind() -> None:
    """Arrow cannot type {"x": "1"} and {"x": 1} as one column: they are read as JSON text."""
    frame = pd.DataFrame(
        {
            "tool_calls": [[call("f", x="1")], [call("f", x=1)]],
            "expected_calls": [[call("f", x=1)], [call("f", x=1)]],
        },
        index=[10, 20],
    )
    result = frame.grade.tool_calls()
    assert list(result.index) == [10, 20]
    assert result["correct"].tolist() == [False, True]


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


def test_bad_mode_raises_naming_the_modes() -> None:
    frame = pl.DataFrame({"tool_calls": [text([a])], "expected_calls": [text([a])]})
    with pytest.raises(ValueError, match="`mode` must be one of 'exact', 'in_order'"):
        frame.grade.tool_calls(mode="strict")


@pytest.mark.parametrize("arguments", ["all", [], [1], None])
def test_bad_arguments_value_raises(arguments) -> None:
    frame = pl.DataFrame({"tool_calls": [text([a])], "expected_calls": [text([a])]})
    with pytest.raises(ValueError, match="`arguments`"):
        frame.grade.tool_calls(arguments=arguments)


@pytest.mark.parametrize("rel_tol", [-0.1, float("nan"), "0.1", True])
def test_bad_rel_tol_raises(rel_tol) -> None:
    frame = pl.DataFrame({"tool_calls": [text([a])], "expected_calls": [text([a])]})
    with pytest.raises(ValueError, match="`rel_tol`"):
        frame.grade.tool_calls(rel_tol=rel_tol)


@pytest.mark.parametrize(
    "values", [[1, 2], [["a"], ["b"]], [{"name": "f"}, {"name": "g"}], [[{"x": 1}], [{"x": 2}]]]
)
def test_a_column_that_holds_no_calls_raises_naming_column_and_dtype(values) -> None:
    frame = pl.DataFrame({"tool_calls": values, "expected_calls": [text([a])] * 2})
    with pytest.raises(TypeError, match=r"column 'tool_calls' holds no tool calls: its dtype is"):
        frame.grade.tool_calls()


def test_missing_column_raises_before_any_work() -> None:
    frame = pl.DataFrame({"calls": [text([a])]})
    with pytest.raises(pl.exceptions.ColumnNotFoundError, match="expected_calls"):
        frame.grade.tool_calls("calls")


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        '{"name": "f"}',
        '[{"name": "f"',
        '[{"arguments": {}}]',
        '[{"name": "f", "arguments": [1]}]',
    ],
)
def test_bad_expected_value_raises_naming_the_row(bad) -> None:
    frame = pl.DataFrame({"tool_calls": [text([a]), text([a])], "expected_calls": [text([a]), bad]})
    with pytest.raises(ValueError, match="expected value in row 1"):
        frame.grade.tool_calls()


@pytest.mark.parametrize(
    "bad", ["not json", '[{"arguments": {}}]', '[{"name": "f", "arguments": 5}]']
)
def test_an_actual_text_equal_to_a_bad_expected_text_still_raises(bad) -> None:
    """Actual texts equal to their expected text are not read again: the expected one is."""
    frame = pl.DataFrame({"tool_calls": [text([a]), bad], "expected_calls": [text([a]), bad]})
    with pytest.raises(ValueError, match="expected value in row 1"):
        frame.grade.tool_calls()


def test_actual_texts_equal_to_expected_texts_match_in_every_mode() -> None:
    calls = text([a, call("f", x=1), a])
    frame = pl.DataFrame({"tool_calls": [calls, calls, "[]"], "expected_calls": [calls, "", "[]"]})
    for mode in MODES:
        result = frame.grade.tool_calls(mode=mode)
        correct = [True, mode in ("in_order", "superset"), True]
        extra = [[], ["a", "f", "a"], []]
        assert_equal_data(result, {"correct": correct, "missing": [[], [], []], "extra": extra})


@pytest.mark.parametrize(
    "bad",
    [
        "not json",
        '{"name": "f"}',
        '[{"name": "a"',
        '[{"arguments": {}}]',
        '[{"name": "a", "arguments": 5}]',
    ],
)
def test_bad_actual_value_fails_only_its_row(bad) -> None:
    frame = pl.DataFrame({"tool_calls": [bad, text([a])], "expected_calls": [text([a]), text([a])]})
    result = frame.grade.tool_calls(mode="subset")
    assert_equal_data(result, {"correct": [False, True], "missing": [["a"], []]})


# ---------------------------------------------------------------------------------------------
# The scalar reference, held to the column code
# ---------------------------------------------------------------------------------------------

VALUES = st.sampled_from([1, 1.0, 2, 100, 104, 95, "1", "a", True, False, None, [1, 2], [2, 1]])
NESTED = st.dictionaries(st.just("z"), VALUES)
ARGS = st.dictionaries(st.sampled_from(["x", "y"]), VALUES | NESTED, max_size=2)
CALLS = st.lists(
    st.builds(lambda n, args: {"name": n, "arguments": args}, st.sampled_from(["a", "b"]), ARGS),
    max_size=4,
)
ROWS = st.lists(st.tuples(CALLS | st.none(), CALLS | st.none()), min_size=1, max_size=6)


@given(
    rows=ROWS,
    mode=st.sampled_from(["exact", "in_order", "any_order", "superset", "subset"]),
    arguments=st.sampled_from(["exact", "ignore", ["x"], ["x", "y"]]),
    rel_tol=st.sampled_from([0.0, 0.05]),
    fast=st.booleans(),
)
def test_column_code_agrees_with_brute_force_reference(
    rows, mode, arguments, rel_tol, fast
) -> None:
    frame = pl.DataFrame(
        {
            "tool_calls": [text(actual) for actual, _ in rows],
            "expected_calls": [text(expected) for _, expected in rows],
        },
        schema={"tool_calls": pl.String, "expected_calls": pl.String},
    )
    tool_calls_module.FAST = fast
    try:
        graded = frame.grade.tool_calls(mode=mode, arguments=arguments, rel_tol=rel_tol)
    finally:
        tool_calls_module.FAST = True
    result = to_data(graded)
    for i, (actual, expected) in enumerate(rows):
        correct, missing, extra = ref.grade(
            actual, expected, mode=mode, arguments=arguments, rel_tol=rel_tol
        )
        got_missing, got_extra = result["missing"][i], result["extra"][i]
        assert (result["correct"][i], len(got_missing), len(got_extra)) == (correct, missing, extra)
        # the matched calls pair up by name: what is left of each side has the same names
        assert ref.names(expected) - Counter(got_missing) == ref.names(actual) - Counter(got_extra)


@given(
    xs=st.lists(st.integers(90, 110), min_size=1, max_size=5),
    ys=st.lists(st.integers(90, 110), min_size=1, max_size=5),
    mode=st.sampled_from(["any_order", "superset", "subset", "in_order"]),
)
def test_tolerance_matching_is_maximum_where_greedy_is_not(xs, ys, mode) -> None:
    """Numbers within 5% of each other: a relation that is not transitive."""
    actual = [call("f", x=x) for x in xs]
    expected = [call("f", x=y) for y in ys]
    frame = pl.DataFrame({"tool_calls": [text(actual)], "expected_calls": [text(expected)]})
    result = to_data(frame.grade.tool_calls(mode=mode, rel_tol=0.05))
    correct, missing, extra = ref.grade(actual, expected, mode=mode, rel_tol=0.05)
    assert (result["correct"][0], len(result["missing"][0]), len(result["extra"][0])) == (
        correct,
        missing,
        extra,
    )


# ---------------------------------------------------------------------------------------------
# Dask and Spark: the same rows as Polars
# ---------------------------------------------------------------------------------------------

ENGINE_FRAME = {
    "row_id": [0, 1, 2, 3],
    "tool_calls": [text([a, b]), text([b, a]), None, text([call("f", x=1.0)])],
    "expected_calls": [text([a, b]), text([a, b]), text([a]), text(f(x=1))],
}
ENGINE_COLUMNS = ["correct", "expectation", "missing", "extra"]


@pytest.mark.parametrize("npartitions", [1, 2])
def test_dask_gives_polars_rows(npartitions: int) -> None:
    dd = pytest.importorskip("dask.dataframe")
    import gradeframe.dask  # noqa: F401

    frame = pl.DataFrame(ENGINE_FRAME)
    ddf = dd.from_pandas(frame.to_pandas(), npartitions=npartitions)
    for mode in ("exact", "any_order"):
        expected = to_data(frame.grade.tool_calls(mode=mode).select(ENGINE_COLUMNS))
        got = to_data(ddf.grade.tool_calls(mode=mode).compute())
        assert {k: got[k] for k in ENGINE_COLUMNS} == expected


@pytest.mark.filterwarnings(
    "ignore:PySpark does not yet fully support pandas >= 3.0.0:FutureWarning"
)
def test_spark_gives_polars_rows() -> None:
    pytest.importorskip("pyspark")
    import os
    import shutil
    import sys

    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        pytest.skip("Spark needs Java")
    from pyspark.sql import SparkSession

    from gradeframe import spark as gs

    os.environ["PYSPARK_PYTHON"] = sys.executable
    spark = (
        SparkSession.builder.master("local[1]")
        .appName("gradeframe-tool-calls")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    try:
        frame = pl.DataFrame(ENGINE_FRAME)
        sdf = spark.createDataFrame(frame.to_arrow()).repartition(2)
        expected = to_data(frame.grade.tool_calls(mode="exact").select(ENGINE_COLUMNS))
        rows = gs.tool_calls(sdf, mode="exact").orderBy("row_id").collect()
        got = {k: [r[k] for r in rows] for k in ENGINE_COLUMNS}
        assert got == expected
    finally:
        spark.stop()


# ---------------------------------------------------------------------------------------------
# The inspect reader's tool_calls column, on a real agent log
# ---------------------------------------------------------------------------------------------

INSPECT_TOOLS = Path(__file__).parent / "fixtures" / "logs_extra" / "inspect_tools"


@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_read_inspect_tool_calls_grade_against_expected_calls_in_metadata(suffix) -> None:
    (log,) = INSPECT_TOOLS.glob(f"*{suffix}")
    frame = gf.read_inspect(log).with_columns(
        expected_calls=pl.col("inspect_metadata").str.json_path_match("$.expected_calls")
    )
    graded = frame.grade.tool_calls("tool_calls", "expected_calls").sort("sample_id")
    assert_equal_data(
        graded,
        {
            "sample_id": ["no_tools", "sum", "weather", "wrong_city"],
            "correct": [False, True, True, False],
            "missing": [["weather"], [], [], ["weather"]],
            "extra": [[], [], [], ["search", "weather"]],
        },
    )


def test_read_inspect_tool_calls_are_the_same_from_eval_and_json() -> None:
    """The .eval is read by Polars all at once, the .json by Python's json: same calls."""
    by_suffix = {}
    for suffix in (".eval", ".json"):
        (log,) = INSPECT_TOOLS.glob(f"*{suffix}")
        frame = gf.read_inspect(log).sort("sample_id")
        by_suffix[suffix] = [
            [(c["name"], json.loads(c["arguments"])) for c in calls]
            for calls in frame.get_column("tool_calls").to_list()
        ]
    assert by_suffix[".eval"] == by_suffix[".json"]
    assert by_suffix[".eval"][1] == [("add", {"x": 2, "y": 3}), ("add", {"x": 5, "y": 4})]


TYPED_ARGS = st.fixed_dictionaries(
    {},
    optional={
        "x": st.sampled_from([1, 2, 1.0, 2.5, 100, 104]),
        "y": st.sampled_from(["a", "b", "A"]),
        "z": st.lists(st.sampled_from([1, 2]), max_size=2),
    },
)
TYPED_CALLS = st.lists(
    st.builds(
        lambda n, args: {"name": n, "arguments": args}, st.sampled_from(["a", "b"]), TYPED_ARGS
    ),
    max_size=4,
)


@given(
    rows=st.lists(st.tuples(TYPED_CALLS, TYPED_CALLS), min_size=1, max_size=6),
    mode=st.sampled_from(["exact", "in_order", "any_order", "superset", "subset"]),
    arguments=st.sampled_from(["exact", "ignore", ["x"], ["y", "z"]]),
)
def test_struct_columns_agree_with_brute_force_reference(rows, mode, arguments) -> None:
    """Lists of structs, as Polars types them (the typed path: no JSON at all)."""
    actual = [[{"name": c["name"], "arguments": dict(c["arguments"])} for c in a] for a, _ in rows]
    expected = [
        [{"name": c["name"], "arguments": dict(c["arguments"])} for c in e] for _, e in rows
    ]
    frame = pl.DataFrame({"tool_calls": actual, "expected_calls": expected}, strict=False)
    if (
        not isinstance(frame.schema["tool_calls"], pl.List)
        or frame.schema["tool_calls"].inner == pl.Null
    ):
        return  # every list empty: nothing typed to hold
    if not isinstance(frame.schema["expected_calls"].inner, pl.Struct):
        return
    result = to_data(frame.grade.tool_calls(mode=mode, arguments=arguments))
    for i, (a, e) in enumerate(rows):
        correct, missing, extra = ref.grade(a, e, mode=mode, arguments=arguments)
        got = (result["correct"][i], len(result["missing"][i]), len(result["extra"][i]))
        assert got == (correct, missing, extra)


@pytest.mark.parametrize("mode", ["exact", "in_order", "any_order", "superset", "subset"])
@pytest.mark.parametrize("rel_tol", [0.0, 0.1])
def test_an_empty_frame_gives_the_columns(mode, rel_tol) -> None:
    """Dask, Spark and the command line grade an empty frame first, for its schema."""
    typed = pl.List(pl.Struct({"name": pl.String, "arguments": pl.Struct({"x": pl.Int64})}))
    for schema in (
        {"tool_calls": pl.String, "expected_calls": pl.String},
        {"tool_calls": typed, "expected_calls": typed},
        {"tool_calls": typed, "expected_calls": pl.String},
    ):
        result = pl.DataFrame(schema=schema).grade.tool_calls(mode=mode, rel_tol=rel_tol)
        assert result.columns[-4:] == ["correct", "expectation", "missing", "extra"]
        assert result.height == 0


# ---------------------------------------------------------------------------------------------
# The command line: gradeframe score --grader tool_calls
# ---------------------------------------------------------------------------------------------


def test_command_line_grader_gives_the_library_verdicts(tmp_path) -> None:
    import contextlib
    import io

    from gradeframe.cli import main

    runs = tmp_path / "runs.csv"
    pl.DataFrame(
        {
            "run": ["swapped", "wrong city", "no calls"],
            "tool_calls": [
                text([call("search", q="paris"), call("weather", city="Paris", days=3)]),
                text([call("weather", city="Lyon", days=3)]),
                None,
            ],
            "expected_calls": [
                text([call("weather", days=3.0, city="Paris"), call("search", q="paris")]),
                text([call("weather", city="Paris", days=3)]),
                text([call("search", q="x")]),
            ],
        }
    ).write_csv(runs)
    out = tmp_path / "graded.parquet"
    args = ["score", str(runs), "--answer", "tool_calls", "--grader", "tool_calls"]
    args += ["--expected", "expected_calls", "--option", "mode=any_order", "-o", str(out), "-q"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(args) == 0
    got = pl.read_parquet(out)
    want = gf.read_table(runs).grade.tool_calls(mode="any_order")
    for column in ("correct", "expectation", "missing", "extra"):
        assert got[column].to_list() == want[column].to_list()
    assert got["correct"].to_list() == [True, False, False]
