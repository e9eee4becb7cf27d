"""Bad and odd input: every row of the README's table is a test here, on Polars and pandas."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest

import gradeframe
from tests.utils import FRAME_TYPES, make_frame, to_data

POLARS_AND_PANDAS = ["polars_eager", "polars_lazy", "pandas_object"]


def _grade(
    kind: str, data: dict[str, list[Any]], schema: Any = None, **kwargs: Any
) -> dict[str, list[Any]]:
    return to_data(make_frame(kind, data, schema=schema).grade.answer_contains(**kwargs))


@pytest.mark.parametrize("kind", POLARS_AND_PANDAS)
@pytest.mark.parametrize(
    ("argument", "value"),
    [("answer", "answr"), ("refs", "ref"), ("partial", "partal"), ("not_found", "judge")],
)
def test_missing_column_is_named_when_the_call_is_made(
    kind: str, argument: str, value: str
) -> None:
    frame = make_frame(kind, {"answer": ["x"], "refs": ["x"]})
    with pytest.raises(
        pl.exceptions.ColumnNotFoundError, match=rf"`{argument}={value!r}`.*no column {value!r}"
    ):
        frame.grade.answer_contains(**{argument: value})  # lazy: raised before collect()


@pytest.mark.parametrize("kind", ["polars_eager", "polars_lazy", "pandas_arrow"])
@pytest.mark.parametrize(
    ("refs", "dtype"),
    [
        ([True, False], "Boolean"),
        ([{"a": "1"}, {"a": "2"}], "Struct"),
        ([[["1"]], [["2"]]], r"List\(List"),
        ([[True], [False]], r"List\(Boolean"),
    ],
    ids=["boolean", "struct", "nested_lists", "list_of_booleans"],
)
def test_unsupported_refs_type_names_column_and_dtype(
    kind: str, refs: list[Any], dtype: str
) -> None:
    frame = make_frame(kind, {"answer": ["x", "y"], "refs": refs})
    with pytest.raises(TypeError, match=rf"`refs`: column 'refs' has dtype {dtype}"):
        frame.grade.answer_contains()


@pytest.mark.parametrize("kind", FRAME_TYPES)
@pytest.mark.parametrize(
    "answers", [[12, 13], [1.5, None], [True, False]], ids=["int", "float", "bool"]
)
def test_answer_column_of_numbers_or_booleans_raises_naming_column_and_dtype(
    kind: str, answers: list[Any]
) -> None:
    frame = make_frame(kind, {"answer": answers, "refs": ["12", "13"]})
    with pytest.raises(TypeError, match=r"`answer`: column 'answer' has dtype \w+, not text"):
        frame.grade.answer_contains()


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_zero_rows(kind: str) -> None:
    frame = make_frame(
        kind, {"answer": [], "refs": []}, schema={"answer": pl.String, "refs": pl.List(pl.String)}
    )
    out = to_data(frame.grade.answer_contains())
    assert out == {"answer": [], "refs": [], "correct": [], "failure_kind": [], "outcome": []}


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_all_null_columns(kind: str) -> None:
    data = {
        "answer": [None, None],
        "refs": [None, None],
        "partial": [None, None],
        "notes": [None, None],
        "trace": [None, None],
        "status": [None, None],
    }
    out = _grade(kind, data, partial="partial", notes="notes", trace="trace", status="status")
    assert out["correct"] == [False, False]
    assert out["failure_kind"] == ["no_reference", "no_reference"]


@pytest.mark.parametrize("kind", ["polars_eager", "pandas_object"])
def test_ten_megabyte_answer(kind: str) -> None:
    big = "x" * 10_000_000
    out = _grade(kind, {"answer": [big + " 12", big + "112", "12"], "refs": ["12", "12", "12"]})
    assert out["correct"] == [True, False, True]


@pytest.mark.parametrize("kind", ["polars_eager", "polars_lazy", "pandas_object"])
def test_ten_thousand_acceptable_answers_in_one_row(kind: str) -> None:
    refs = [str(i) for i in range(10_000)]
    out = _grade(
        kind, {"answer": ["it was 9999", "it was 10000", "none"], "refs": [refs, refs, refs[:1]]}
    )
    assert out["correct"] == [True, False, False]


ODD_TEXT = [
    ("control_characters", "a\x00\x0112\x7f", "12", True),
    ("private_use_around_number", "\ue00012\uf8ff", "12", True),
    ("combining_mark_after_number", "12\u0301", "12", True),
    ("right_to_left_text", "\u05d0\u05d1 12 \u05d2", "12", True),
    ("emoji_between_numbers", "1\U0001f6002", "2", True),
    ("arabic_indic_digit_before", "\u066112", "12", False),
    ("capital_marker_letters_in_answer", "SEQUENCE 12E", "12e", True),
    ("capital_marker_letters_as_ref", "the key is SQ-12", "SQ-12", True),
    ("zero_width_space_is_not_white_space", "1\u200b204", "1204", False),
]


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_odd_unicode_scores_as_the_reference_says(kind: str) -> None:
    from tests import reference

    out = _grade(kind, {"answer": [c[1] for c in ODD_TEXT], "refs": [c[2] for c in ODD_TEXT]})
    assert out["correct"] == [c[3] for c in ODD_TEXT]
    assert out["correct"] == [reference.answer_contains(c[1], c[2])["correct"] for c in ODD_TEXT]


@pytest.mark.parametrize("kind", FRAME_TYPES)
def test_output_names_that_exist_raise_and_suggest_prefix(kind: str) -> None:
    frame = make_frame(kind, {"answer": ["x"], "refs": ["x"], "outcome": ["old"]})
    with pytest.raises(ValueError, match=r"already has column\(s\) 'outcome'.*prefix="):
        frame.grade.answer_contains()
    out = to_data(frame.grade.answer_contains(prefix="new_"))
    assert out["outcome"] == ["old"]
    assert out["new_outcome"] == ["x"]


@pytest.mark.parametrize("kind", POLARS_AND_PANDAS)
@pytest.mark.parametrize(
    ("phrases", "match"),
    [
        (["fine", "(?<!x)y"], r"phrases\[1\]`: '\(\?<!x\)y'.*look-around"),
        (["[unclosed"], r"phrases\[0\]`: '\[unclosed'.*unclosed character class"),
    ],
    ids=["lookbehind", "unclosed_class"],
)
def test_invalid_not_found_phrase_is_named(kind: str, phrases: list[str], match: str) -> None:
    frame = make_frame(kind, {"answer": ["x"], "refs": ["x"]})
    with pytest.raises(ValueError, match=match):
        frame.grade.answer_contains(not_found=phrases)


@pytest.mark.parametrize(
    ("argument", "column", "values", "match"),
    [
        ("partial", "p", [[1]], r"`partial`: column 'p' has dtype List\(Int64\); expected Boolean"),
        ("notes", "n", [3], r"`notes`: column 'n' has dtype Int64"),
        ("trace", "t", [[1]], r"`trace`: column 't' has dtype List\(Int64\)"),
        ("status", "s", [1.5], r"`status`: column 's' has dtype Float64"),
        ("failure_kind", "k", [7], r"`failure_kind`: column 'k' has dtype Int64"),
        ("not_found", "j", [1], r"`not_found`: column 'j' has dtype Int64"),
    ],
)
def test_keyword_column_of_the_wrong_dtype(
    argument: str, column: str, values: list[Any], match: str
) -> None:
    frame = pl.DataFrame({"answer": ["x"], "refs": ["x"], column: values})
    with pytest.raises(TypeError, match=match):
        frame.grade.answer_contains(**{argument: column})
    with pytest.raises(TypeError, match=match):
        frame.lazy().grade.answer_contains(**{argument: column})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"answer": 3}, r"`answer` must be a column name \(str\) or a polars expression, got int"),
        ({"prefix": 3}, r"`prefix` must be a str, got int"),
        ({"not_found": 3}, r"`not_found` must be a Boolean column name"),
    ],
)
def test_bad_argument_types(kwargs: dict[str, Any], match: str) -> None:
    frame = pl.DataFrame({"answer": ["x"], "refs": ["x"]})
    with pytest.raises(TypeError, match=match):
        frame.grade.answer_contains(**kwargs)


def test_messy_json_lines_file(tmp_path: Path) -> None:
    # a file as logging tools write it: missing fields, nulls, a number for an answer, records
    rows = [
        {"q": 1, "output": {"answer": "It was 12,400.", "partial": False}, "refs": ["12400"]},
        {"q": 2, "output": {"answer": None, "text": "12"}, "refs": ["12"]},
        {"q": 3, "output": {"status": "error"}, "refs": ["12"]},
        {"q": 4, "output": None, "refs": []},
        {
            "q": 5,
            "output": {"answer": "sorry", "trace": [{"finish_reason": "refusal"}]},
            "refs": ["12"],
        },
    ]
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    frame = pl.read_ndjson(path)
    out = frame.grade.answer_contains("output", "refs")
    assert out["failure_kind"].to_list() == [None, None, "error", "no_reference", "refusal"]
    pandas_out = pd.read_json(path, lines=True).grade.answer_contains("output", "refs")
    assert to_data(pandas_out)["failure_kind"] == [None, None, "error", "no_reference", "refusal"]


# --------------------------------------------------------------------------------------------
# G20: lone surrogates ("\ud800"): text UTF-8 cannot hold, named where it is
# --------------------------------------------------------------------------------------------

LONE = "ab\ud800c"


def _object_frame(**columns: list[Any]) -> pd.DataFrame:
    return pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()})


@pytest.mark.parametrize(
    ("call", "where"),
    [
        (
            lambda: _object_frame(answer=["x", LONE], refs=["x", "x"]).grade.answer_contains(),
            "column 'answer' at row 1 (index 1)",
        ),
        (
            lambda: _object_frame(answer=["x", "y"], refs=["x", LONE]).grade.answer_contains(),
            "column 'refs' at row 1 (index 1)",
        ),
        (
            lambda: _object_frame(answer=["x", "y"], refs=[["x"], ["y", LONE]]).grade.exact_match(
                "answer", "refs"
            ),
            "column 'refs' at row 1 (index 1)",
        ),
        (
            lambda: pd.Series(["x", LONE], index=["a", "b"], dtype=object).grade.fold(),
            "the Series at row 1 (index 'b')",
        ),
        (
            lambda: gradeframe.consistency(
                _object_frame(question_id=[1, 1], answer=[LONE, "x"], correct=[True, False]),
                answer="answer",
            ),
            "column 'answer' at row 0 (index 0)",
        ),
        (
            lambda: _object_frame(model=[LONE], correct=[True]).grade.report(by="model"),
            "column 'model' at row 0 (index 0)",
        ),
        (
            lambda: gradeframe.rewards.answer_contains_reward(["x", LONE], ["x", "x"]),
            "completions[1]",
        ),
        (lambda: gradeframe.rewards.answer_contains_reward(["x"], [["x", LONE]]), "refs[0]"),
        (lambda: gradeframe.rewards.accuracy_reward(["1"], [LONE]), "solution[0]"),
        (
            lambda: pl.DataFrame({"answer": ["x"], "refs": ["x"]}).grade.answer_contains(
                prefix=LONE
            ),
            "`prefix`",
        ),
        (
            lambda: pl.DataFrame({"a": ["x"]}).grade.exact_match("a", "a", label=LONE),
            "`label`",
        ),
        (lambda: pl.DataFrame({"a": ["x"]}).grade.exact_match("a", LONE), "`expected`"),
        (
            lambda: gradeframe.example().grade.answer_contains().grade.html(title=LONE),
            "`title`",
        ),
    ],
    ids=[
        "pandas answer",
        "pandas refs",
        "pandas list refs",
        "pandas Series",
        "pandas consistency",
        "pandas report by",
        "reward completions",
        "reward refs",
        "reward solution",
        "prefix",
        "label",
        "column name",
        "html title",
    ],
)
def test_a_lone_surrogate_is_named_where_it_is(call: Any, where: str) -> None:
    # It used to be a bare UnicodeEncodeError from Arrow or Polars, naming nothing.
    said = f"{where} holds a lone surrogate '\\ud800' at character 2"
    with pytest.raises(ValueError, match=re.escape(said)):
        call()


def test_a_lone_surrogate_in_json_reads_as_the_replacement_character(tmp_path: Path) -> None:
    # A JSON file's "\ud800" escape: Polars' JSON Lines reader made a high one NUL and refused a
    # low one; Python's json made text Polars cannot hold. Both files read alike: U+FFFD.
    escaped = [r"x\ud800y", r"x\udc00y", r"\ud83d\ude00", r"\\ud800", r"nul\u0000"]
    lines = [f'{{"answer": "{text}", "refs": ["{text}"]}}' for text in escaped]
    (tmp_path / "a.jsonl").write_text("\n".join(lines) + "\n")
    (tmp_path / "a.json").write_text("[" + ",".join(lines) + "]")
    want = ["x\ufffdy", "x\ufffdy", "\U0001f600", "\\ud800", "nul\x00"]  # and a real NUL
    for name in ("a.jsonl", "a.json"):
        read = gradeframe.read_table(tmp_path / name)
        assert read.get_column("answer").to_list() == want
        assert read.get_column("refs").to_list() == [[w] for w in want]  # in lists too


def test_a_csv_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_bytes(b"answer,refs\nx,x\nab\xed\xa0\x80c,x\n")  # a surrogate encoded as bytes
    with pytest.raises(ValueError, match=r"line 3, byte 3: b'\\xed' is not UTF-8"):
        gradeframe.read_table(path)


def test_file_names_that_are_not_utf8_are_read_and_written(tmp_path: Path) -> None:
    from gradeframe import cli

    folder = tmp_path / "d\udcff"  # the bytes b"d\xff", as Python shows them
    folder.mkdir()
    source = folder / "in\udcff.csv"
    source.write_text("answer,refs\nIt was 12.,12\n")
    target = folder / "out\udcff.parquet"
    assert cli.main(["score", str(source), "-q", "-o", str(target)]) == 0
    assert pl.read_parquet(target.read_bytes()).get_column("correct").to_list() == [True]


def test_a_failure_cap_past_int64_is_refused_naming_it() -> None:
    # G17's kin: a count past Int64 was Polars' OverflowError deep in the page's listing.
    graded = gradeframe.example().grade.answer_contains()
    with pytest.raises(ValueError, match=r"`max_failures` must be an int from 0 to 2\*\*63 - 1"):
        graded.grade.html(max_failures=2**64)
