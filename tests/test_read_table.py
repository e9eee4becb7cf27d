"""gradeframe.read_table: a file read as ``gradeframe score`` reads it, graded to the same verdicts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import gradeframe as gf
from gradeframe import cli
from tests.test_user_path import USER_CSV, USER_VERDICTS
from tests.utils import assert_equal_data

FIXTURES = Path(__file__).parent / "fixtures"
GRADED = ["correct", "failure_kind", "outcome"]

# Cells pandas' read_csv turns into missing values or numbers by default; as text they are answers.
LOOKALIKE_CSV = (
    "question_id,answer,refs\n"
    "q1,NA,NA\n"
    "q2,The code is 007.,007\n"
    "q3,None,None\n"
    "q4,N/A,N/A\n"
    "q5,It is 7.,007\n"
    "q6,0.10,0.1\n"
)


def _graded_by_the_command_line(path: Path, tmp_path: Path, *flags: str) -> pl.DataFrame:
    out = tmp_path / "graded.parquet"
    assert cli.main(["score", str(path), "-o", str(out), "-q", *flags]) == 0
    return pl.read_parquet(out)


@pytest.mark.parametrize("text", [USER_CSV, LOOKALIKE_CSV], ids=["json-list refs", "lookalikes"])
def test_read_table_then_answer_contains_gives_the_command_lines_verdicts(
    text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(text, encoding="utf-8")
    graded = gf.read_table(path).grade.answer_contains("answer", "refs")
    by_cli = _graded_by_the_command_line(path, tmp_path)
    assert_frame_equal(graded.select(GRADED), by_cli.select(GRADED))
    capsys.readouterr()


def test_the_user_csv_read_as_a_table_gets_the_users_verdicts(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(USER_CSV, encoding="utf-8")
    assert_equal_data(gf.read_table(path).grade.answer_contains(), USER_VERDICTS)


def test_na_none_and_007_stay_as_written(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text(LOOKALIKE_CSV, encoding="utf-8")
    frame = gf.read_table(path)
    assert frame.schema == pl.Schema(
        {"question_id": pl.String, "answer": pl.String, "refs": pl.String}
    )
    assert frame["refs"].to_list() == ["NA", "007", "None", "N/A", "007", "0.1"]
    # "007" is no 7: "It is 7." does not hold the acceptable answer 007
    assert frame.grade.answer_contains()["correct"].to_list() == [
        True,
        True,
        True,
        True,
        False,
        False,
    ]


def test_a_csv_the_command_line_wrote_reads_back_with_its_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A JSON Lines file of output records, graded and written to CSV by the command line (which
    # flattens the records into output.answer, output.partial, ...), reads back as the records.
    rows = [
        {"output": {"answer": "It is 12,400.", "partial": False, "notes": []}, "refs": "12400"},
        {
            "output": {"answer": "It is 12", "partial": True, "notes": ["max_tokens"]},
            "refs": "12400",
        },
        {"output": {"answer": None, "partial": False, "notes": []}, "refs": '["7", "seven"]'},
    ]
    source = tmp_path / "runs.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    written = tmp_path / "graded.csv"
    assert cli.main(["score", str(source), "--answer", "output", "-o", str(written), "-q"]) == 0
    capsys.readouterr()
    frame = gf.read_table(written, answer="output")
    assert isinstance(frame.schema["output"], pl.Struct)
    assert frame.schema["output"].to_schema()["partial"] == pl.Boolean
    assert set(GRADED) <= set(frame.columns)  # every column is kept as read
    graded = frame.drop(GRADED).grade.answer_contains("output", "refs")
    by_cli = _graded_by_the_command_line(written, tmp_path, "--answer", "output")
    assert_frame_equal(graded.select(GRADED), by_cli.select(GRADED))
    assert graded["correct"].to_list() == [True, False, False]


def test_parquet_and_json_lines_are_read_as_written(tmp_path: Path) -> None:
    frame = pl.DataFrame({"answer": ["007", "x"], "refs": [["007", "7"], ["y"]], "n": [1, 2]})
    frame.write_parquet(tmp_path / "a.parquet")
    frame.write_ndjson(tmp_path / "a.jsonl")
    assert_frame_equal(gf.read_table(tmp_path / "a.parquet"), frame)
    assert_frame_equal(gf.read_table(tmp_path / "a.jsonl"), frame)


def test_a_log_is_read_as_read_log_reads_it() -> None:
    path = next((FIXTURES / "logs" / "inspect").glob("*.eval"))
    assert_frame_equal(gf.read_table(path), gf.read_log(path))


@pytest.mark.parametrize(
    ("name", "text", "kwargs", "words"),
    [
        ("missing.csv", None, {}, "no such file"),
        ("answers.txt", "answer\nx\n", {}, "unknown extension"),
        ("answers.csv", "answer;refs\nx;y\n", {}, "pass separator=';'"),
        ("answers.csv", "answer,refs\nx,y\n", {"refs": "gold"}, "gold"),
    ],
)
def test_a_file_that_cannot_be_read_raises_naming_it(
    tmp_path: Path, name: str, text: str | None, kwargs: dict[str, str], words: str
) -> None:
    path = tmp_path / name
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=words):
        gf.read_table(path, **kwargs)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"refs": "gold"}, "`refs='gold'`: the input has no column 'gold'"),
        ({"answer": "reply"}, "`answer='reply'`: the input has no column 'reply'"),
        ({"answer": "answer.text"}, "`answer='answer.text'`: column 'answer' has no field"),
    ],
    ids=["refs", "answer", "answer_field"],
)
def test_read_tables_errors_name_its_arguments_not_the_command_lines_flags(
    tmp_path: Path, kwargs: dict[str, str], words: str
) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("answer,refs\nx,y\n", encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(words)) as raised:
        gf.read_table(path, **kwargs)
    assert "--" not in str(raised.value)


def test_a_separator_reads_the_csv_it_names(tmp_path: Path) -> None:
    path = tmp_path / "answers.csv"
    path.write_text("answer;refs\nIt is 7.;7\n", encoding="utf-8")
    assert gf.read_table(path, separator=";").grade.answer_contains()["correct"].to_list() == [True]
