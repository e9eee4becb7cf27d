"""SPEC §2 "On the user's path": the verdicts a user gets on the path they actually take.

JSON-list refs read the same on every surface (and by the command line), numeric answer columns
raise, flat record columns are read by name, and ``explain=True`` says what was matched or
nearly matched.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import gradeframe as gf
from gradeframe.answer import json_list_refs
from tests.utils import Constructor, assert_equal_data, run_cli, to_data

# A user's own CSV: a spreadsheet export whose refs column mixes plain cells and JSON lists (with
# numbers, a thousands separator in the answer, and cells that look like lists but are not).
USER_CSV = (
    "question,answer,refs\n"
    'How tall is the tower?,It is 61.9 m tall.,"[""61.9"", ""61.9 m""]"\n'
    'How many units?,"It made 12,400 units.",[12400]\n'
    'How many units (float)?,It made 12400 units.,"[12400.0, ""twelve thousand""]"\n'
    "Which city?,Paris,Paris\n"
    "Source?,It needs a [citation needed] tag.,[citation needed]\n"
    'Range?,It is 1 or 2.,"[1, 2"\n'
    "Depth?,It is 145.2 m.,45.2\n"
    "Big?,It is 1000000000000000.,[1e15]\n"
    'Nested?,"It says [{""a"": 1}].","[{""a"": 1}]"\n'
    'Unanswerable?,The document does not say.,"[""NOT_IN_DOCUMENT""]"\n'
    "Empty list?,anything,[]\n"
    'Spaced?,It was 7.," [""7""] "\n'
)

# What the user means: the JSON lists are lists, everything else one acceptable answer.
USER_VERDICTS = {
    "correct": [True, True, True, True, True, False, False, True, True, True, False, True],
    "failure_kind": [
        None,
        None,
        None,
        None,
        None,
        "wrong",  # "[1, 2" is one answer, not in "it is 1 or 2."
        "wrong",  # 45.2 is not in 145.2
        None,
        None,  # an array holding an object is one answer, as written (and it is there)
        None,
        "no_reference",
        None,
    ],
}


@pytest.fixture
def user_csv(tmp_path: Path) -> Path:
    path = tmp_path / "answers.csv"
    path.write_text(USER_CSV, encoding="utf-8")
    return path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``gradeframe ARGS`` run in this process (tests.utils.run_cli)."""
    return run_cli(*args)


# --------------------------------------------------------------------------------------------
# JSON-list refs
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "expected"),
    [
        ('["61.9", "61.9 m"]', ["61.9", "61.9 m"]),
        ("[12400]", ["12400"]),
        (
            "[12400.0, 1e15, 1e-7, 2.50, -0.0]",
            ["12400", "1000000000000000", "0.0000001", "2.5", "0"],
        ),
        ("[12345678901234567890]", ["12345678901234567890"]),  # no float rounding
        ('  ["a", 3]\n', ["a", "3"]),
        ('["x\\"y", "\\u00e9", "a,b"]', ['x"y', "é", "a,b"]),
        ("[]", []),
        ("[citation needed]", None),
        ("[1, 2", None),
        ('[{"a": 1}]', None),
        ("[[1]]", None),
        ("[null]", None),
        ("[true]", None),
        ("[1e9999]", None),  # a thousand-digit exponent is not written out: one answer
        ("NYC, New York City", None),
        ("plain", None),
        (None, None),
    ],
)
def test_json_list_refs_reads_arrays_of_strings_and_numbers_only(cell, expected) -> None:
    frame = pl.DataFrame({"refs": [cell]}, schema={"refs": pl.String})
    assert frame.select(json_list_refs(pl.col("refs"))).to_series().to_list() == [expected]


def test_json_list_refs_are_lists_on_every_frame_type(constructor: Constructor) -> None:
    frame = pl.read_csv(io.StringIO(USER_CSV), infer_schema=False)
    result = constructor(frame.to_dict(as_series=False)).grade.answer_contains()
    assert_equal_data(result, USER_VERDICTS)


def test_read_csv_by_pandas_polars_and_the_command_line_give_the_same_verdicts(
    user_csv: Path, tmp_path: Path
) -> None:
    by_pandas = pd.read_csv(user_csv).grade.answer_contains()
    by_polars = pl.read_csv(user_csv, infer_schema=False).grade.answer_contains()
    by_lazy = pl.scan_csv(user_csv, infer_schema=False).grade.answer_contains().collect()
    out = tmp_path / "graded.parquet"
    result = cli("score", str(user_csv), "-o", str(out), "-q")
    assert result.returncode == 0, result.stderr
    by_cli = pl.read_parquet(out)
    for graded in (by_pandas, by_polars, by_lazy, by_cli):
        assert_equal_data(graded, USER_VERDICTS)
    assert "12 answers from" in result.stdout
    assert " 9 right (75.0%)" in result.stdout


def test_cells_that_only_look_like_lists_are_one_answer_each() -> None:
    # No cell is a JSON list: the same verdicts as before, text refs matched one per row.
    frame = pl.DataFrame({"answer": ["It was [7]", "x"], "refs": ["[7]x", "[citation needed]"]})
    assert_equal_data(frame.grade.answer_contains(), {"correct": [False, False]})


def test_json_list_refs_in_the_expression_form_and_with_a_categorical_column() -> None:
    frame = pl.DataFrame(
        {"answer": ["It is 61.9 m.", "It is 7."], "refs": ['["61.9", "x"]', "[citation needed]"]}
    )
    expr = frame.select(gf.answer_contains("answer", "refs")).unnest("answer_contains")
    assert expr["correct"].to_list() == [True, False]
    categorical = frame.with_columns(pl.col("refs").cast(pl.Categorical))
    assert categorical.grade.answer_contains()["correct"].to_list() == [True, False]


def test_json_list_items_of_a_list_column_stay_literal() -> None:
    # Only a String refs value is read as JSON; an item of a list of acceptable answers is text.
    frame = pl.DataFrame({"answer": ["61.9"], "refs": [['["61.9"]']]})
    assert frame.grade.answer_contains()["correct"].to_list() == [False]


# --------------------------------------------------------------------------------------------
# Numbers as answers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "dtype", "advice"),
    [
        ([12, 7], pl.Int64, "within"),
        ([12.5, 7.0], pl.Float64, "within"),
        ([True, False], pl.Boolean, "cast"),
    ],
)
def test_numeric_answer_column_raises_instead_of_scoring_every_row_parse_failure(
    constructor: Constructor, values, dtype, advice
) -> None:
    frame = constructor({"answer": values, "refs": ["12", "7"]})
    if isinstance(frame, pl.DataFrame | pl.LazyFrame):
        frame = frame.with_columns(pl.col("answer").cast(dtype))
    with pytest.raises(TypeError, match=rf"`answer`: column 'answer' has dtype .*{advice}"):
        frame.grade.answer_contains()


def test_numeric_answer_raises_in_the_expression_form_with_a_schema() -> None:
    frame = pl.DataFrame({"answer": [12], "refs": ["12"]})
    with pytest.raises(TypeError, match=r"pl\.String"):
        gf.answer_contains("answer", "refs", schema=frame.schema)


def test_numeric_answer_raises_in_the_expression_form_when_the_data_arrives() -> None:
    frame = pl.DataFrame({"answer": [12], "refs": ["12"]})
    with pytest.raises(TypeError, match="column 'answer' has dtype Int64, not text"):
        frame.select(gf.answer_contains("answer", "refs"))


def test_pandas_object_column_mixing_text_and_numbers_keeps_per_row_parse_failure() -> None:
    frame = pd.DataFrame({"answer": pd.Series(["12", 12, None], dtype=object), "refs": ["12"] * 3})
    assert_equal_data(
        frame.grade.answer_contains(),
        {"correct": [True, False, False], "failure_kind": [None, "parse_failure", "parse_failure"]},
    )


# --------------------------------------------------------------------------------------------
# Flat record columns by name
# --------------------------------------------------------------------------------------------


def test_flat_status_column_holding_error_gives_error_rows_without_status_argument(
    constructor: Constructor,
) -> None:
    frame = constructor(
        {"answer": ["12", "12", "12"], "refs": ["12", "12", "12"], "status": ["error", None, "ok"]}
    )
    assert_equal_data(
        frame.grade.answer_contains(),
        {"correct": [False, True, True], "failure_kind": ["error", None, None]},
    )


def test_flat_partial_notes_and_trace_columns_are_read_by_name(constructor: Constructor) -> None:
    frame = constructor(
        {
            "answer": [None, "", "x"],
            "refs": ["12", "12", "12"],
            "partial": [True, False, False],
            "notes": ["cost_cap_reached", None, None],
            "trace": ["stop", "content_filter", None],
        }
    )
    assert_equal_data(
        frame.grade.answer_contains(),
        {"failure_kind": ["budget_stop", "refusal", "wrong"]},
    )


def test_struct_field_wins_over_a_flat_column_of_the_same_name() -> None:
    frame = pl.DataFrame(
        {
            "output": [{"answer": "12", "status": None}],
            "status": ["error"],  # the struct has a status field: that one is read
            "refs": ["12"],
        }
    )
    assert frame.grade.answer_contains("output")["correct"].to_list() == [True]


def test_failure_kind_column_is_not_read_by_name() -> None:
    frame = pl.DataFrame({"answer": ["12"], "refs": ["12"], "failure_kind": ["timeout"]})
    with pytest.raises(ValueError, match="already has column"):
        frame.grade.answer_contains()  # an output column, never an input by name
    assert frame.grade.answer_contains(prefix="g_")["g_correct"].to_list() == [True]


def test_flat_column_of_the_wrong_dtype_says_it_was_read_by_name() -> None:
    frame = pl.DataFrame({"answer": ["12"], "refs": ["12"], "status": [200]})
    with pytest.raises(TypeError, match="read as the status of each row when `status` is not"):
        frame.grade.answer_contains()


def test_text_partial_column_reads_like_the_command_line() -> None:
    frame = pl.DataFrame(
        {
            "answer": [None, None],
            "refs": ["12", "12"],
            "partial": ["TRUE", "false"],
            "notes": ["cost_cap_reached"] * 2,
        }
    )
    assert frame.grade.answer_contains()["failure_kind"].to_list() == [
        "budget_stop",
        "parse_failure",
    ]


def test_command_line_reads_a_flat_status_column_by_name(tmp_path: Path) -> None:
    path = tmp_path / "runs.csv"
    path.write_text(
        "answer,refs,status,partial,notes\n"
        "It was 12.,12,error,false,\n"
        "It was 12.,12,,false,\n"
        ",12,,true,cost_cap_reached\n",
        encoding="utf-8",
    )
    out = tmp_path / "graded.parquet"
    result = cli("score", str(path), "-o", str(out), "-q")
    assert result.returncode == 0, result.stderr
    assert pl.read_parquet(out)["failure_kind"].to_list() == ["error", None, "budget_stop"]
    by_polars = pl.read_csv(path, infer_schema=False).grade.answer_contains()
    by_pandas = pd.read_csv(path).grade.answer_contains()
    for graded in (by_polars, by_pandas):
        assert_equal_data(graded, {"failure_kind": ["error", None, "budget_stop"]})


# --------------------------------------------------------------------------------------------
# explain=True
# --------------------------------------------------------------------------------------------

EXPLAINED = {
    "answer": [
        "It is 145.2 m.",
        "It is 61.9 m tall.",
        "In 2012 and 12 again",
        "NOT_IN_DOCUMENT",
        None,
        "about 45.25",
        "nothing here",
    ],
    "refs": ["45.2", '["61.9 m", "61.9"]', "12", "NOT_IN_DOCUMENT", "7", "45.2", "12"],
}


def test_explain_says_what_was_matched_and_what_was_nearly_matched(
    constructor: Constructor,
) -> None:
    result = constructor(EXPLAINED).grade.answer_contains(explain=True)
    assert_equal_data(
        result,
        {
            "correct": [False, True, True, True, False, False, False],
            "matched": [None, "61.9 m", "12", None, None, None, None],
            "near_miss": ["45.2", None, None, None, None, "45.2", None],
        },
    )


def test_explain_on_list_refs_gives_the_first_acceptable_answer_found_as_given(
    frame_type: str,
) -> None:
    from tests.utils import make_frame

    frame = make_frame(
        frame_type,
        {
            "answer": ["It made 12,400 units.", "It is 145.2 m.", "x", "no"],
            "refs": [["zzz", "12,400", "12400"], ["145", "45.2"], [], ["NOT_IN_DOCUMENT", "x"]],
        },
    )
    result = frame.grade.answer_contains(explain=True, prefix="g_")
    assert_equal_data(
        result,
        {
            "g_matched": ["12,400", None, None, None],
            "g_near_miss": [None, "145", None, None],
        },
    )


def test_explain_on_numeric_refs_gives_the_number_as_written() -> None:
    frame = pl.DataFrame(
        {"answer": ["It made 12400 units.", "It is 112400."], "refs": [12400.0] * 2}
    )
    result = frame.grade.answer_contains(explain=True)
    assert result["matched"].to_list() == ["12400", None]
    assert result["near_miss"].to_list() == [None, "12400"]


def test_explain_in_the_expression_form_adds_struct_fields() -> None:
    frame = pl.DataFrame(EXPLAINED)
    fields = frame.select(gf.answer_contains("answer", "refs", explain=True)).unnest(
        "answer_contains"
    )
    assert fields.columns == ["correct", "failure_kind", "outcome", "matched", "near_miss"]
    assert fields["near_miss"].to_list()[0] == "45.2"


def test_explain_off_adds_nothing_and_explain_must_be_a_bool() -> None:
    frame = pl.DataFrame(EXPLAINED)
    assert frame.grade.answer_contains().columns == [
        "answer",
        "refs",
        "correct",
        "failure_kind",
        "outcome",
    ]
    with pytest.raises(TypeError, match="`explain` must be True or False"):
        frame.grade.answer_contains(explain="yes")  # type: ignore[arg-type]


def test_explain_on_a_lazy_frame_with_long_lists_that_explode() -> None:
    refs = [[f"x{i}" for i in range(20)] + ["12"], [f"y{i}" for i in range(20)] + ["45.2"]]
    frame = pl.DataFrame({"answer": ["It was 12.", "It is 145.2 m."], "refs": refs})
    lazy = frame.lazy().grade.answer_contains(explain=True).collect()
    assert lazy.equals(frame.grade.answer_contains(explain=True))
    assert to_data(lazy)["matched"] == ["12", None]
    assert to_data(lazy)["near_miss"] == [None, "45.2"]


def test_pandas_refs_mixing_python_lists_and_json_text_read_the_text_as_lists() -> None:
    # pd.read_json of JSON Lines whose refs are lists in some records and JSON text in others.
    refs = pd.Series([["12"], '["61.9", "61.9 m"]', "[citation needed]", 7], dtype=object)
    frame = pd.DataFrame(
        {"answer": ["It was 12.", "It is 61.9 m.", "See [citation needed].", "It was 7."]}
    )
    frame["refs"] = refs
    assert frame.grade.answer_contains()["correct"].tolist() == [True, True, True, True]
